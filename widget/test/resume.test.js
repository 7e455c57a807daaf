import {
  assert,
  chatApi,
  cleanUp,
  conversationCount,
  createWidget,
  equal,
  find,
  greetingOf,
  messages,
  release,
  scriptLlm,
  sendsOf,
  settings,
  storedSession,
  textOf,
  type,
  waitFor,
} from './helpers.js'

describe('resume, tabs and starters (real chat API, fake LLM)', () => {
  afterEach(cleanUp)

  it('restores the transcript after a reload from the history endpoint, in the same session', async () => {
    const agent = { 'agent-id': settings.reloadAgentId }
    const first = createWidget(agent)
    first.open()
    await waitFor(() => messages(first).length === 1)
    await type(first, 'remember me')
    // stream_end comes after the reply is stored; reloading before it would race the history read.
    await waitFor(() => find(first, '[part~="send"]') && messages(first).at(-1) === 'You said: remember me', {
      message: 'reply',
    })
    const before = await conversationCount(settings.reloadAgentId)
    first.remove()
    const second = createWidget(agent)
    second.open()
    await waitFor(() => messages(second).length === 3, { message: 'restored transcript' })
    equal(messages(second), [greetingOf('Reload Desk'), 'remember me', 'You said: remember me'])
    equal(await conversationCount(settings.reloadAgentId), before, 'no new session on the server:')
  })

  it('starts fresh silently when the stored session has ended on the server', async () => {
    const agent = { 'agent-id': settings.secondAgentId }
    const first = createWidget(agent)
    first.open()
    await waitFor(() => messages(first).length === 1)
    const old = storedSession(settings.secondAgentId)
    first.remove()
    // Ended elsewhere (another device, the idle expiry): the stored token now meets a 404.
    equal((await chatApi(old, '/end', { method: 'POST' })).status, 200, 'ended:')
    const widget = createWidget(agent)
    widget.open()
    await waitFor(() => messages(widget).join('|') === greetingOf('Second Desk'), {
      message: 'fresh greeting',
    })
    assert(!find(widget, '[role="alert"]'), 'no error for an expired session')
    assert(storedSession(settings.secondAgentId).conversationId !== old.conversationId, 'new session stored')
  })

  it('starts fresh silently when the stored token is not valid (401)', async () => {
    localStorage.setItem(
      `parley:v1:${settings.baseUrl}:${settings.supportAgentId}`,
      JSON.stringify({ conversationId: 'gone', sessionToken: 'not-a-jwt', agentName: 'Old', greeting: null }),
    )
    const widget = createWidget()
    widget.open()
    await waitFor(() => messages(widget).join('|') === greetingOf('Support Bot'), {
      message: 'fresh greeting',
    })
    assert(!find(widget, '[role="alert"]'), 'no error shown')
  })

  it('runs two widgets for two agents on one page independently', async () => {
    const a = createWidget({ position: 'bottom-left' })
    const b = createWidget({ 'agent-id': settings.secondAgentId })
    a.open()
    b.open()
    await waitFor(
      () => messages(a)[0] === greetingOf('Support Bot') && messages(b)[0] === greetingOf('Second Desk'),
      { message: 'both greetings' },
    )
    await type(a, 'only in a')
    await waitFor(() => messages(a).at(-1) === 'You said: only in a' && find(a, '[part~="send"]'))
    equal(messages(b), [greetingOf('Second Desk')])
    await type(b, 'only in b')
    await waitFor(() => messages(b).at(-1) === 'You said: only in b')
    equal(messages(a), [greetingOf('Support Bot'), 'only in a', 'You said: only in a'])
    assert(
      storedSession().conversationId !== storedSession(settings.secondAgentId).conversationId,
      'two sessions',
    )
  })

  it('shares one conversation between two tabs: one session row, one stream, the live reply mirrored', async () => {
    const agentId = settings.tabsAgentId
    const widget = createWidget({ 'agent-id': agentId })
    widget.open()
    await waitFor(() => messages(widget).length === 1)
    // A same-origin frame is another browsing context with the same storage and BroadcastChannel.
    const frame = document.createElement('iframe')
    frame.srcdoc = `<script src="${settings.baseUrl}/widget/parley.js"></script>
      <parley-widget agent-id="${agentId}" key="${settings.key}" base-url="${settings.baseUrl}" open></parley-widget>`
    document.body.append(frame)
    const other = await waitFor(
      () =>
        frame.contentDocument?.querySelector('parley-widget')?.shadowRoot &&
        frame.contentDocument.querySelector('parley-widget'),
      { message: 'second tab' },
    )
    await waitFor(() => messages(other)[0] === greetingOf('Tabs Desk'), { message: 'second tab restored' })
    await scriptLlm('tell both tabs', {
      text: ['Seen ', 'in ', 'both ', 'tabs.'],
      hold: { atChunk: 2, name: 'tabs' },
    })
    await type(widget, 'tell both tabs')
    // Seen in the other tab while the first one still streams.
    await waitFor(() => messages(other).at(-1) === 'Seen in ', { message: 'live reply in the other tab' })
    await release('tabs')
    await waitFor(() => messages(other).at(-1) === 'Seen in both tabs.', {
      message: () => `the whole reply in the other tab: ${messages(other)} (this tab: ${messages(widget)})`,
    })
    equal(await conversationCount(agentId), 1, 'conversation rows on the server:')
    equal((await sendsOf(storedSession(agentId).conversationId)).length, 1, 'reply streams opened:')
  })

  it('counts unread replies on the launcher while closed', async () => {
    const widget = createWidget()
    widget.open()
    await waitFor(() => messages(widget).length === 1)
    widget.close()
    await widget.send('while closed')
    await waitFor(() => textOf(widget, '.badge') === '1', { message: 'badge' })
    assert(find(widget, '.launcher').getAttribute('aria-label').includes('1 unread'), 'badge in the label')
    widget.open()
    await waitFor(() => !find(widget, '.badge'), { message: 'badge cleared on open' })
    equal(messages(widget).at(-1), 'You said: while closed')
  })

  it('offers starter prompts before the first message', async () => {
    const widget = createWidget({ suggestions: JSON.stringify(['What are your hours?', 'Track my order']) })
    widget.open()
    await waitFor(() => find(widget, '.suggestion'), { message: 'suggestions' })
    find(widget, '.suggestion').click()
    await waitFor(() => messages(widget).at(-1) === 'You said: What are your hours?', {
      message: 'prompt sent',
    })
    assert(!find(widget, '.suggestion'), 'suggestions gone after the first message')
  })
})
