import {
  assert,
  chatApi,
  cleanUp,
  createWidget,
  equal,
  find,
  greetingOf,
  messages,
  release,
  scriptLlm,
  storedSession,
  textOf,
  toolResults,
  type,
  waitFor,
} from './helpers.js'

describe('a conversation through the shadow DOM (real chat API, fake LLM)', () => {
  afterEach(cleanUp)

  it('greets, streams a reply visibly before stream_end, shows tool, handoff and end lines', async () => {
    const widget = createWidget()
    widget.open()
    await waitFor(() => messages(widget)[0] === greetingOf('Support Bot'), { message: 'greeting' })
    equal(textOf(widget, '.title'), 'Support Bot', 'title:')

    // The model pauses mid-reply: the first words are on screen while the stream is still open.
    await scriptLlm('tell me a story', {
      text: ['Once ', 'upon ', 'a ', 'time.'],
      hold: { atChunk: 2, name: 'story' },
    })
    await type(widget, 'tell me a story')
    await waitFor(() => messages(widget).at(-1) === 'Once upon ', { message: 'first words' })
    assert(find(widget, '[part~="stop"]'), 'the reply is visible while the stream is still open')
    await release('story')
    await waitFor(() => messages(widget).at(-1) === 'Once upon a time.' && find(widget, '[part~="send"]'), {
      message: 'whole reply',
    })

    // lookup_order calls the local shop, which answers only when the test lets it.
    await scriptLlm(
      'where is order A1?',
      { toolCalls: [{ name: 'lookup_order', args: ['{"order_id":', '"A1"}'] }] },
      { text: ['Your order ', 'ships tomorrow.'] },
    )
    await type(widget, 'where is order A1?')
    await waitFor(() => textOf(widget, '.tool').includes('lookup order'), { message: 'tool status line' })
    await release('shop')
    await waitFor(() => messages(widget).at(-1) === 'Your order ships tomorrow.', {
      message: 'reply after tool',
    })
    assert(!find(widget, '.tool'), 'the tool line goes away when the reply continues')
    // The server really called the shop (allowed by OUTBOUND_ALLOW_HOSTS) and told the model.
    equal(await toolResults('where is order A1?'), ['{"order":"A1","status":"shipped"}'], 'tool results:')

    await scriptLlm(
      'I want a refund',
      { toolCalls: [{ name: 'transfer_to_billing_bot', args: ['{}'] }] },
      { text: ['Billing ', 'here.'] },
    )
    await type(widget, 'I want a refund')
    await waitFor(() => textOf(widget, '.handoff') === 'Now talking to Billing Bot', {
      message: 'handoff line',
    })
    await waitFor(() => textOf(widget, '.title') === 'Billing Bot', { message: 'title follows the handoff' })
    await waitFor(() => messages(widget).at(-1) === 'Billing here.', { message: 'the new agent answers' })

    const session = storedSession()
    const ended = new Promise((resolve) =>
      widget.addEventListener('parley:conversation-end', resolve, { once: true }),
    )
    await scriptLlm('bye', { toolCalls: [{ name: 'end_call', args: ['{}'] }] })
    await type(widget, 'bye')
    await ended
    await waitFor(() => textOf(widget, '.notice').includes('Conversation ended.'), {
      message: 'ended notice',
    })
    assert(messages(widget).includes('Goodbye from billing!'), `closing line: ${messages(widget)}`)
    // The widget called the end endpoint: the server no longer knows the session.
    await waitFor(async () => (await chatApi(session, '/messages')).status === 404, {
      message: 'session ended on the server',
    })
    find(widget, '.notice button').click()
    await waitFor(() => messages(widget).join('|') === greetingOf('Support Bot'), {
      message: 'new conversation',
    })
    assert(storedSession().conversationId !== session.conversationId, 'a new conversation')
  })

  it('shows the typing indicator before the first chunk', async () => {
    const widget = createWidget()
    widget.open()
    await waitFor(() => messages(widget).length === 1)
    await scriptLlm('are you there?', { text: ['Yes.'], hold: { atChunk: 0, name: 'typing' } })
    await type(widget, 'are you there?')
    await waitFor(() => find(widget, '.typing'), { message: 'typing indicator' })
    await release('typing')
    await waitFor(() => messages(widget).at(-1) === 'Yes.', { message: 'reply' })
    assert(!find(widget, '.typing'), 'the indicator goes once the reply arrives')
  })

  it('stop keeps the words that arrived, frees the composer and the server keeps them too', async () => {
    const widget = createWidget()
    widget.open()
    await waitFor(() => messages(widget).length === 1)
    await scriptLlm('go on and on', {
      text: ['First ', 'words ', 'never sent.'],
      hold: { atChunk: 2, name: 'stop' },
    })
    await type(widget, 'go on and on')
    await waitFor(() => messages(widget).at(-1) === 'First words ', { message: 'first words' })
    find(widget, '[part~="stop"]').click()
    await waitFor(() => find(widget, '[part~="send"]'), { message: 'send button back' })
    const session = storedSession()
    const stored = await waitFor(
      async () => {
        const history = await (await chatApi(session, '/messages')).json()
        return history.messages.at(-1)?.role === 'assistant' && history.messages.at(-1).content
      },
      { message: 'the stopped reply stored' },
    )
    // Only now may the model go on: what it sends after the stop must not appear anywhere.
    await release('stop')
    equal(stored, 'First words ', 'stored on the server:')
    equal(messages(widget).at(-1), 'First words ', 'nothing arrives after stop:')
  })
})
