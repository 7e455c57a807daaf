import {
  assert,
  cleanUp,
  createWidget,
  equal,
  find,
  messages,
  settings,
  textOf,
  type,
  waitFor,
} from './helpers.js'

// The seeded demo text agent (the one the demo page embeds) answers with the built-in offline
// model even when an LLM is configured: what `npm start` shows without any provider key.
const demoWidget = () => createWidget({ 'agent-id': settings.agentId })
const GREETING = 'Hi! I am the Parley demo agent. Ask me anything.'

describe('the seeded demo agent', () => {
  afterEach(cleanUp)

  it('authenticates with the widget key, greets and streams a reply visibly before stream_end', async () => {
    const widget = demoWidget()
    widget.open()
    await waitFor(() => messages(widget)[0] === GREETING, { message: 'greeting from the real API' })
    equal(textOf(widget, '.title'), 'Parley Guide')
    await type(widget, 'hello there')
    await waitFor(() => messages(widget).at(-1)?.startsWith('[Offline') && find(widget, '[part~="stop"]'), {
      message: 'partial reply while streaming',
    })
    await waitFor(() => find(widget, '[part~="send"]'), { message: 'stream end' })
    assert(messages(widget).at(-1).includes('You said: "hello there"'), messages(widget).at(-1))
  })
})
