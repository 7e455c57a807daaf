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

// The seeded demo text agent on the real chat API (issue 5) with the embedded offline model.
const realWidget = (attributes = {}) =>
  createWidget({ 'agent-id': settings.agentId, 'base-url': settings.baseUrl, ...attributes })
const GREETING = 'Hi! I am the Parley demo agent. Ask me anything.'

describe('against the real chat API', () => {
  afterEach(cleanUp)

  it('authenticates with the widget key, greets and streams a reply visibly before stream_end', async () => {
    const widget = realWidget()
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

  it('ends the conversation when the agent calls end_call, then starts a new one', async () => {
    const widget = realWidget()
    const ended = new Promise((resolve) =>
      widget.addEventListener('parley:conversation-end', resolve, { once: true }),
    )
    widget.open()
    await waitFor(() => messages(widget).length === 1)
    await type(widget, 'bye')
    await ended
    await waitFor(() => textOf(widget, '.notice').includes('Conversation ended.'), {
      message: 'ended notice',
    })
    find(widget, '.notice button').click()
    await waitFor(() => messages(widget).join('|') === GREETING, { message: 'a fresh conversation' })
  })

  it('restores the transcript after a reload from the history endpoint', async () => {
    const first = realWidget()
    first.open()
    await waitFor(() => messages(first).length === 1)
    await type(first, 'remember this')
    await waitFor(() => find(first, '[part~="send"]') && messages(first).length === 3)
    const before = messages(first)
    first.remove()
    const second = realWidget()
    second.open()
    await waitFor(() => messages(second).length === 3, { message: 'restored transcript' })
    equal(messages(second), before)
  })

  it('starts fresh silently when the stored token is no longer valid', async () => {
    localStorage.setItem(
      `parley:v1:${settings.baseUrl}:${settings.agentId}`,
      JSON.stringify({ conversationId: 'gone', sessionToken: 'not-a-jwt', agentName: 'Old', greeting: null }),
    )
    const widget = realWidget()
    widget.open()
    await waitFor(() => messages(widget).join('|') === GREETING, { message: 'fresh greeting' })
    assert(!find(widget, '[role="alert"]'), 'no error shown')
  })
})
