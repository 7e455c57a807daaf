import {
  assert,
  cleanUp,
  createWidget,
  equal,
  find,
  messages,
  settings,
  stats,
  textOf,
  type,
  waitFor,
} from './helpers.js'

const storageKey = (agentId) => `parley:v1:${settings.standInUrl}:${agentId}`

describe('resume, tabs and starters', () => {
  afterEach(cleanUp)

  it('restores the transcript after a reload from the history endpoint', async () => {
    const first = createWidget()
    first.open()
    await waitFor(() => messages(first).length === 1)
    await type(first, 'remember me')
    await waitFor(() => messages(first).at(-1) === 'You said: remember me')
    // stream_end comes after the reply is stored; reloading before it would race the history read.
    await waitFor(() => find(first, '[part~="send"]'), { message: 'stream end' })
    const before = (await stats()).sessionsCreated
    first.remove()
    const second = createWidget()
    second.open()
    await waitFor(() => messages(second).length === 3, { message: 'restored transcript' })
    equal(messages(second), ['Hello from agent-1!', 'remember me', 'You said: remember me'])
    equal((await stats()).sessionsCreated, before, 'no new session:')
  })

  it('starts fresh silently when the stored session has expired', async () => {
    localStorage.setItem(
      storageKey('agent-1'),
      JSON.stringify({
        conversationId: 'gone',
        sessionToken: 'stale',
        agentName: 'Old',
        greeting: 'Old greeting',
      }),
    )
    const widget = createWidget()
    widget.open()
    await waitFor(() => messages(widget).join('|') === 'Hello from agent-1!', { message: 'fresh greeting' })
    assert(!find(widget, '[role="alert"]'), 'no error for an expired session')
    assert(
      JSON.parse(localStorage.getItem(storageKey('agent-1'))).conversationId !== 'gone',
      'new session stored',
    )
  })

  it('runs two widgets for two agents on one page independently', async () => {
    const a = createWidget({ 'agent-id': 'agent-a', position: 'bottom-left' })
    const b = createWidget({ 'agent-id': 'agent-b' })
    a.open()
    b.open()
    await waitFor(() => messages(a)[0] === 'Hello from agent-a!' && messages(b)[0] === 'Hello from agent-b!')
    await type(a, 'only in a')
    await waitFor(() => messages(a).at(-1) === 'You said: only in a')
    equal(messages(b), ['Hello from agent-b!'])
  })

  it('shares one conversation between two tabs: one session, the live reply mirrored', async () => {
    const before = (await stats()).sessionsCreated
    const widget = createWidget()
    widget.open()
    await waitFor(() => messages(widget).length === 1)
    // A same-origin frame is another browsing context with the same storage and BroadcastChannel.
    const frame = document.createElement('iframe')
    frame.srcdoc = `<script src="${settings.baseUrl}/widget/parley.js"></script>
      <parley-widget agent-id="agent-1" key="${settings.key}" base-url="${settings.standInUrl}" open></parley-widget>`
    document.body.append(frame)
    const other = await waitFor(
      () =>
        frame.contentDocument?.querySelector('parley-widget')?.shadowRoot &&
        frame.contentDocument.querySelector('parley-widget'),
    )
    await waitFor(() => messages(other)[0] === 'Hello from agent-1!', { message: 'second tab restored' })
    await type(widget, 'slow')
    await waitFor(
      // Seen in the other tab while the first one still streams.
      () => messages(other).at(-1)?.startsWith('This reply'),
      {
        message: 'live reply in the other tab',
      },
    )
    await waitFor(() => messages(other).at(-1) === 'This reply takes its time to arrive in full. Done.')
    equal((await stats()).sessionsCreated - before, 1, 'sessions created:')
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
