import { emulateMedia } from '@web/test-runner-commands'
import {
  assert,
  cleanUp,
  createWidget,
  find,
  findAll,
  messages,
  scriptLlm,
  textOf,
  type,
  waitFor,
} from './helpers.js'

// WCAG 2.x contrast, measured on the real computed colours: text against what is really behind
// it (translucent backgrounds composited up to the page), at least 4.5:1 for AA body text.
const AA = 4.5

const parse = (color) => {
  const [r, g, b, a = 1] = (color.match(/[\d.]+/g) ?? []).map(Number)
  return { r, g, b, a }
}
const over = (top, bottom) => ({
  r: top.r * top.a + bottom.r * (1 - top.a),
  g: top.g * top.a + bottom.g * (1 - top.a),
  b: top.b * top.a + bottom.b * (1 - top.a),
  a: 1,
})
const luminance = ({ r, g, b }) => {
  const linear = (channel) => {
    const c = channel / 255
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
}
const ratio = (one, two) => {
  const [light, dark] = [luminance(one), luminance(two)].sort((x, y) => y - x)
  return (light + 0.05) / (dark + 0.05)
}

/** The colour behind an element: its and its ancestors' backgrounds composited over the white page. */
const backgroundOf = (element) => {
  const layers = []
  for (let node = element; node; node = node.parentElement ?? node.getRootNode().host) {
    const color = parse(getComputedStyle(node).backgroundColor)
    if (color.a > 0) layers.push(color)
    if (color.a === 1) break
  }
  return layers.reduceRight((below, layer) => over(layer, below), { r: 255, g: 255, b: 255, a: 1 })
}

/** Every visible, enabled element of the widget holding text of its own, with its contrast. */
const measure = (widget) => {
  const results = []
  for (const element of findAll(widget, '*')) {
    const ownText = [...element.childNodes].some((node) => node.nodeType === 3 && node.textContent.trim())
    const rect = element.getBoundingClientRect()
    if (!ownText || rect.width < 2 || rect.height < 2 || element.closest('[disabled]')) continue
    const foreground = parse(getComputedStyle(element).color)
    const background = backgroundOf(element)
    results.push({
      what: `${element.tagName.toLowerCase()}.${element.className} "${element.textContent.trim().slice(0, 24)}"`,
      ratio: ratio(over(foreground, background), background),
    })
  }
  const input = find(widget, 'textarea')
  if (input && !input.value) {
    const background = backgroundOf(input)
    const placeholder = parse(getComputedStyle(input, '::placeholder').color)
    results.push({ what: 'textarea::placeholder', ratio: ratio(over(placeholder, background), background) })
  }
  return results
}

const assertAA = (widget, theme) => {
  const results = measure(widget)
  assert(results.length >= 5, `measured too little in ${theme}: ${JSON.stringify(results)}`)
  const failing = results.filter((result) => result.ratio < AA)
  assert(
    failing.length === 0,
    `${theme}: below ${AA}:1 ${failing.map((f) => `${f.what} ${f.ratio.toFixed(2)}`).join('; ')}`,
  )
}

describe('WCAG AA contrast of the real computed colours', () => {
  afterEach(async () => {
    cleanUp()
    await emulateMedia({ colorScheme: 'light' })
  })

  for (const theme of ['light', 'dark']) {
    it(`keeps every text at ${AA}:1 or more in the ${theme} theme`, async () => {
      await emulateMedia({ colorScheme: theme })
      const widget = createWidget({ theme, suggestions: '["Opening hours?"]' })
      widget.open()
      await waitFor(() => find(widget, '.suggestion') && messages(widget).length === 1, {
        message: 'greeting and starter prompts',
      })
      assertAA(widget, `${theme} (starter prompts, placeholder)`)
      // The focus ring (a non-text indicator: 3:1) on the text box, where focus lands on open.
      const input = find(widget, 'textarea')
      assert(input.matches(':focus-visible'), 'focus is visible in the text box')
      const ring = ratio(parse(getComputedStyle(input).outlineColor), backgroundOf(input.parentElement))
      assert(ring >= 3, `${theme}: focus ring ${ring.toFixed(2)}:1`)
      await scriptLlm(
        `contrast ${theme}`,
        {
          text: ['Here is **bold**, `code` and [a link](https://example.com).\n\n', '- one\n- two'],
          toolCalls: [{ name: 'transfer_to_billing_bot', args: ['{}'] }],
        },
        // The new agent's reply breaks off: the error notice shows too.
        { text: ['Billing '], breakAfterText: true },
      )
      await type(widget, `contrast ${theme}`)
      await waitFor(() => textOf(widget, '[role="alert"]'), { message: 'the error notice' })
      await waitFor(() => find(widget, '.handoff') && messages(widget).length >= 4, { message: 'all lines' })
      assertAA(widget, `${theme} (messages, link, code, handoff line, notice)`)
    })
  }
})
