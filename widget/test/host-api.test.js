import {
  assert,
  cleanUp,
  createWidget,
  equal,
  find,
  findAll,
  greetingOf,
  messages,
  scriptLlm,
  settings,
  textOf,
  waitFor,
} from './helpers.js'

describe('host page API, markdown safety, strict CSP (real chat API, fake LLM)', () => {
  afterEach(cleanUp)

  it('open, close, toggle, send and endConversation, with their events', async () => {
    const widget = createWidget()
    const events = []
    for (const name of ['parley:open', 'parley:close', 'parley:message', 'parley:conversation-end']) {
      // The events cross the shadow boundary and bubble to the document.
      document.addEventListener(name, (event) => events.push([name, event.detail]))
    }
    widget.open()
    await waitFor(() => messages(widget).length === 1)
    widget.toggle()
    await waitFor(() => !find(widget, '.panel'), { message: 'toggle closes' })
    widget.toggle()
    await waitFor(() => find(widget, '.panel'), { message: 'toggle opens' })
    equal(await widget.send('api message'), true, 'send resolves true')
    await waitFor(() =>
      events.some(([name, detail]) => name === 'parley:message' && detail.role === 'assistant'),
    )
    await widget.endConversation()
    widget.close()
    const names = events.map(([name]) => name)
    equal(names, [
      'parley:open',
      'parley:close',
      'parley:open',
      'parley:message',
      'parley:message',
      'parley:conversation-end',
      'parley:close',
    ])
    equal(events[3][1], { role: 'user', content: 'api message' })
    equal(events[4][1], { role: 'assistant', content: 'You said: api message' })
  })

  it('switches agent when agent-id changes', async () => {
    const widget = createWidget()
    widget.open()
    await waitFor(() => messages(widget)[0] === greetingOf('Support Bot'))
    widget.setAttribute('agent-id', settings.secondAgentId)
    widget.open()
    await waitFor(() => messages(widget)[0] === greetingOf('Second Desk'), { message: 'other agent' })
    equal(textOf(widget, '.title'), 'Second Desk', 'title:')
  })

  it('renders markdown but refuses <img onerror> and javascript: links', async () => {
    const widget = createWidget()
    widget.open()
    await waitFor(() => messages(widget).length === 1)
    // What a model could be talked into sending.
    await scriptLlm('show me markdown', {
      text: [
        '**Bold** <img src=x onerror="window.__pwned=1"> ',
        '[bad](javascript:window.__pwned=2) [good](https://example.com)',
      ],
    })
    await widget.send('show me markdown')
    await waitFor(() => find(widget, '.assistant strong'), { message: 'bold rendered' })
    await new Promise((resolve) => setTimeout(resolve, 100))
    equal(findAll(widget, 'img').length, 0, 'images:')
    const links = findAll(widget, '.assistant a')
    equal(
      links.map((link) => link.getAttribute('href')),
      ['https://example.com'],
      'links:',
    )
    equal(links[0].target, '_blank', 'target:')
    assert(links[0].rel.includes('noopener'), 'rel=noopener')
    assert(messages(widget).at(-1).includes('<img src=x onerror='), 'the HTML is shown as text')
    equal(window.__pwned, undefined, 'no script ran:')
  })

  it('works on a host page with a strict Content-Security-Policy', async () => {
    const result = new Promise((resolve) =>
      window.addEventListener('message', (event) => event.data?.type === 'csp-probe' && resolve(event.data)),
    )
    const frame = document.createElement('iframe')
    frame.src = `${settings.baseUrl}/csp-test/?agent=${settings.secondAgentId}&key=${encodeURIComponent(settings.key)}`
    document.body.append(frame)
    const outcome = await result
    equal(outcome.error, undefined, 'no widget error:')
    equal(outcome.text, 'You said: hello csp', 'reply:')
    equal(outcome.styled, '50%', 'styles applied under the CSP:')
    equal(outcome.violations, [], 'CSP violations:')
  })
})
