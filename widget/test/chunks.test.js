import { assert, cleanUp, equal, find, settings, waitFor } from './helpers.js'

/**
 * The real loader with its panel chunk renamed to one the server does not have, in a frame of its
 * own. Loaded from a blob: URL, it fetches its chunks from base-url's /widget/.
 */
const widgetWithoutPanelChunk = async () => {
  const source = await (await fetch(`${settings.baseUrl}/widget/parley.js`)).text()
  const name = source.match(/panel-[\w-]+\.js/)?.[0]
  assert(name, 'the loader names its panel chunk')
  const broken = new Blob([source.replaceAll(name, 'panel-missing.js')], { type: 'text/javascript' })
  const frame = document.createElement('iframe')
  frame.srcdoc = `<script src="${URL.createObjectURL(broken)}"></script>`
  document.body.append(frame)
  // The loader runs while the frame's parser is still in its head: wait for the body as well.
  await waitFor(
    () => frame.contentDocument?.body && frame.contentWindow?.customElements?.get('parley-widget'),
    { message: 'loader' },
  )
  const widget = frame.contentDocument.createElement('parley-widget')
  widget.setAttribute('agent-id', settings.supportAgentId)
  widget.setAttribute('key', settings.key)
  widget.setAttribute('base-url', settings.baseUrl)
  const events = []
  for (const name of ['parley:open', 'parley:close', 'parley:error'])
    widget.addEventListener(name, (event) => events.push([name, event.detail]))
  frame.contentDocument.body.append(widget)
  return { widget, events }
}

describe('the panel chunk (fetched after the first load)', () => {
  afterEach(cleanUp)

  it('closes the panel again and reports network_error when the chunk cannot be fetched', async () => {
    const { widget, events } = await widgetWithoutPanelChunk()
    widget.open()
    await waitFor(() => events.some(([name]) => name === 'parley:close'), { message: 'the panel closes' })
    equal(
      events,
      [
        ['parley:open', null],
        ['parley:error', { code: 'network_error' }],
        ['parley:close', null],
      ],
      'events:',
    )
    assert(!find(widget, '.panel'), 'no panel')
    equal(find(widget, '.launcher').getAttribute('aria-expanded'), 'false', 'launcher expanded:')
    // A message sent from the page needs the chunk's stream reader: it fails as the network does.
    equal(await widget.send('hello without a reader'), true, 'send resolves true')
    equal(events.at(-1), ['parley:error', { code: 'network_error' }], 'last event:')
  })
})
