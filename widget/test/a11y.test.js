import { emulateMedia, sendKeys, setViewport } from '@web/test-runner-commands'
import {
  assert,
  cleanUp,
  createWidget,
  equal,
  find,
  messages,
  screenshot,
  scriptLlm,
  type,
  waitFor,
} from './helpers.js'

const focused = (widget) => widget.shadowRoot.activeElement

describe('keyboard, screen readers, languages, themes', () => {
  afterEach(async () => {
    cleanUp()
    await setViewport({ width: 1024, height: 768 })
    await emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' })
  })

  it('works with the keyboard alone and announces replies through aria-live', async () => {
    const widget = createWidget()
    find(widget, '.launcher').focus()
    await sendKeys({ press: 'Enter' })
    await waitFor(() => focused(widget)?.tagName === 'TEXTAREA', { message: 'focus moves into the panel' })
    await waitFor(() => messages(widget).length === 1)
    await sendKeys({ type: 'first line' })
    await sendKeys({ down: 'Shift' })
    await sendKeys({ press: 'Enter' })
    await sendKeys({ up: 'Shift' })
    await sendKeys({ type: 'second' })
    equal(find(widget, 'textarea').value, 'first line\nsecond', 'Shift+Enter is a newline:')
    await sendKeys({ press: 'Enter' })
    await waitFor(() => messages(widget).at(-1) === 'You said: first line\nsecond', { message: 'reply' })
    await waitFor(
      () =>
        find(widget, '[aria-live="polite"][role="status"]').textContent === 'You said: first line\nsecond',
      {
        message: 'announcement',
      },
    )
    await sendKeys({ press: 'Escape' })
    await waitFor(() => !find(widget, '.panel'), { message: 'Escape closes' })
    await waitFor(() => focused(widget)?.classList.contains('launcher'), {
      message: 'focus back on the launcher',
    })
  })

  it('lays Urdu out right to left with the launcher mirrored to the left', async () => {
    const widget = createWidget({ lang: 'ur' })
    widget.open()
    await waitFor(() => messages(widget).length === 1)
    equal(getComputedStyle(find(widget, '.root')).direction, 'rtl', 'direction')
    const launcher = find(widget, '.launcher').getBoundingClientRect()
    assert(launcher.right < window.innerWidth / 2, `launcher on the left, right edge at ${launcher.right}`)
    equal(find(widget, 'textarea').placeholder, 'پیغام لکھیں…', 'Urdu strings')
    await type(widget, 'salaam')
    await waitFor(() => messages(widget).length === 3)
    // English text in the Urdu panel keeps its own direction: "…Bot!", not "!…Bot".
    const greeting = find(widget, '.assistant p').firstChild
    const leftOf = (offset) => {
      const character = document.createRange()
      character.setStart(greeting, offset)
      character.setEnd(greeting, offset + 1)
      return character.getBoundingClientRect().left
    }
    const last = greeting.textContent.length - 1
    assert(leftOf(last) > leftOf(0), `"${greeting.textContent.at(-1)}" ends the line, right of "H"`)
    await screenshot(widget, 'rtl-ur')
  })

  it('applies theme custom properties and the accent attribute', async () => {
    const widget = createWidget({ style: '--parley-accent: rgb(200, 0, 0)' })
    equal(getComputedStyle(find(widget, '.launcher')).backgroundColor, 'rgb(200, 0, 0)', 'custom property')
    widget.setAttribute('accent', 'rgb(0, 100, 0)')
    await waitFor(() => getComputedStyle(find(widget, '.launcher')).backgroundColor === 'rgb(0, 100, 0)', {
      message: 'live accent attribute',
    })
  })

  it('screenshots: light and dark', async () => {
    const widget = createWidget({ theme: 'light', suggestions: '["Opening hours?"]' })
    widget.open()
    await waitFor(() => messages(widget).length === 1)
    await scriptLlm('what can you do?', {
      text: [
        'I can **track orders**, answer questions about [billing](https://example.com) and:\n\n',
        '- change an address\n- cancel an order',
      ],
    })
    await type(widget, 'what can you do?')
    await waitFor(() => find(widget, '[part~="send"]') && messages(widget).length === 3)
    await screenshot(widget, 'light')
    widget.setAttribute('theme', 'auto')
    await emulateMedia({ colorScheme: 'dark' })
    await waitFor(() => getComputedStyle(find(widget, '.panel')).backgroundColor === 'rgb(22, 24, 29)', {
      message: 'auto theme follows prefers-color-scheme',
    })
    await screenshot(widget, 'dark', { colorScheme: 'dark' })
    equal(
      getComputedStyle(find(widget, '.panel')).backgroundColor,
      'rgb(22, 24, 29)',
      'still dark when shot:',
    )
  })

  it('screenshot: mobile 375 px wide', async () => {
    await setViewport({ width: 375, height: 740 })
    const widget = createWidget()
    widget.open()
    await waitFor(() => messages(widget).length === 1)
    await type(widget, 'hello on a phone')
    await waitFor(() => messages(widget).length === 3)
    const panel = find(widget, '.panel').getBoundingClientRect()
    assert(panel.left >= 0 && panel.right <= 375, `panel fits the screen: ${panel.left}..${panel.right}`)
    await screenshot(widget, 'mobile-375')
  })
})
