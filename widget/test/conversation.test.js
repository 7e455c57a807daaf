import { assert, cleanUp, createWidget, equal, find, messages, textOf, type, waitFor } from './helpers.js'

describe('a conversation through the shadow DOM', () => {
  afterEach(cleanUp)

  it('greets, streams a reply visibly before stream_end, shows tool, handoff and end lines', async () => {
    const widget = createWidget()
    widget.open()
    await waitFor(() => messages(widget)[0] === 'Hello from agent-1!', { message: 'greeting' })

    await type(widget, 'slow')
    await waitFor(() => find(widget, '[part~="stop"]'), { message: 'stop button while streaming' })
    await waitFor(() => messages(widget).at(-1)?.startsWith('This reply'), { message: 'first words' })
    assert(find(widget, '[part~="stop"]'), 'the reply is visible while the stream is still open')
    await waitFor(() => messages(widget).at(-1) === 'This reply takes its time to arrive in full. Done.', {
      message: 'whole reply',
    })

    await type(widget, 'tool please')
    await waitFor(() => textOf(widget, '.tool').includes('lookup order'), { message: 'tool status line' })
    await waitFor(() => messages(widget).at(-1) === 'Your order ships tomorrow.', {
      message: 'reply after tool',
    })
    assert(!find(widget, '.tool'), 'the tool line goes away when the reply continues')

    await type(widget, 'handoff')
    await waitFor(() => textOf(widget, '.handoff') === 'Now talking to Billing Bot', {
      message: 'handoff line',
    })
    await waitFor(() => textOf(widget, '.title') === 'Billing Bot', { message: 'title follows the handoff' })

    const ended = new Promise((resolve) =>
      widget.addEventListener('parley:conversation-end', resolve, { once: true }),
    )
    await waitFor(() => !find(widget, 'textarea').disabled && !find(widget, '[part~="stop"]'))
    await type(widget, 'bye')
    await ended
    await waitFor(() => textOf(widget, '.notice').includes('Conversation ended.'), {
      message: 'ended notice',
    })
    find(widget, '.notice button').click()
    await waitFor(() => messages(widget).join('|') === 'Hello from agent-1!', { message: 'new conversation' })
  })

  it('shows the typing indicator before the first chunk', async () => {
    const widget = createWidget()
    widget.open()
    await waitFor(() => messages(widget).length === 1)
    await type(widget, 'tool')
    await waitFor(() => find(widget, '.typing') || find(widget, '.tool'), { message: 'typing or tool line' })
  })

  it('stop keeps the words that arrived and frees the composer', async () => {
    const widget = createWidget()
    widget.open()
    await waitFor(() => messages(widget).length === 1)
    await type(widget, 'slow')
    await waitFor(() => messages(widget).at(-1)?.startsWith('This'), { message: 'first words' })
    find(widget, '[part~="stop"]').click()
    await waitFor(() => find(widget, '[part~="send"]'), { message: 'send button back' })
    const partial = messages(widget).at(-1)
    await new Promise((resolve) => setTimeout(resolve, 600))
    equal(messages(widget).at(-1), partial, 'nothing arrives after stop:')
  })
})
