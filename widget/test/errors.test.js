import {
  assert,
  chatApi,
  cleanUp,
  createWidget,
  dropStream,
  equal,
  find,
  greetingOf,
  messages,
  operator,
  release,
  scriptLlm,
  sendsOf,
  settings,
  storedSession,
  textOf,
  type,
  waitFor,
} from './helpers.js'

describe('error paths (real chat API, fake LLM)', () => {
  afterEach(cleanUp)

  it('shows an upstream error event in place, and retry sends again', async () => {
    const widget = createWidget()
    const errors = []
    widget.addEventListener('parley:error', (event) => errors.push(event.detail.code))
    widget.open()
    await waitFor(() => messages(widget).length === 1)
    // The model provider breaks the connection mid-stream; the second attempt goes through.
    await scriptLlm('check my invoice', { text: ['Looking '], breakAfterText: true }, { text: ['All paid.'] })
    await type(widget, 'check my invoice')
    await waitFor(() => textOf(widget, '[role="alert"]').includes('Something went wrong.'), {
      message: 'error notice',
    })
    assert(errors.includes('stream_error'), `parley:error carries the code, got ${errors}`)
    find(widget, '[role="alert"] button').click()
    await waitFor(() => messages(widget).at(-1) === 'All paid.', { message: 'the retried reply' })
    assert(!find(widget, '[role="alert"]'), 'the notice goes once the retry works')
    equal(messages(widget).filter((text) => text === 'check my invoice').length, 1, 'the message shown once:')
  })

  it('counts down a real 429 from Retry-After and blocks sending meanwhile', async () => {
    const widget = createWidget()
    widget.open()
    await waitFor(() => messages(widget).length === 1)
    // Spend the session's 60 sends a minute with the widget's own token (empty bodies: refused
    // after the limiter has counted them, so the model is never asked).
    const session = storedSession()
    for (let i = 0; i < 60; i++) {
      const response = await chatApi(session, '/messages', { method: 'POST', body: '{}' })
      equal(response.status, 400, `request ${i + 1}:`)
    }
    const refused = await chatApi(session, '/messages', { method: 'POST', body: '{"message":"probe"}' })
    equal(refused.status, 429, 'the 61st send:')
    const retryAfter = Number(refused.headers.get('retry-after'))
    assert(retryAfter > 1 && retryAfter <= 60, `Retry-After readable across origins: ${retryAfter}`)
    await type(widget, 'one more')
    await waitFor(() => /Try again in \d+ s/.test(textOf(widget, '[role="alert"]')), { message: 'countdown' })
    const first = Number(/in (\d+) s/.exec(textOf(widget, '[role="alert"]'))[1])
    assert(
      first <= retryAfter && first >= retryAfter - 3,
      `starts at Retry-After ${retryAfter}, got ${first}`,
    )
    assert(find(widget, '[role="alert"] button').disabled, 'retry waits for the countdown')
    assert(find(widget, 'textarea').disabled, 'the composer waits too')
    await waitFor(() => textOf(widget, '[role="alert"]').includes(`Try again in ${first - 1} s`), {
      message: 'countdown ticks',
    })
  })

  it('says the chat is unavailable on 402 once the organization has no credits left', async () => {
    const { organizationId, agentId, widgetKey } = settings.broke
    const widget = createWidget({ 'agent-id': agentId, key: widgetKey })
    const errors = []
    widget.addEventListener('parley:error', (event) => errors.push(event.detail.code))
    widget.open()
    await waitFor(() => messages(widget)[0] === greetingOf('Broke Desk'), {
      message: 'greeting while funded',
    })
    // The operator corrects the whole balance away.
    const organizations = await operator('GET', '/admin/organizations')
    const balance = organizations.data.find(
      (organization) => organization.id === organizationId,
    ).creditBalanceUsd
    assert(balance > 0, `the organization starts with credits: ${balance}`)
    const drained = await operator('POST', `/admin/organizations/${organizationId}/credits`, {
      amountUsd: -balance,
      reason: 'browser test: no credits left',
    })
    equal(drained.data.organization.creditBalanceUsd, 0, 'balance after the correction:')
    await type(widget, 'hello?')
    await waitFor(() => textOf(widget, '[role="alert"]').includes('unavailable'), { message: '402 notice' })
    assert(!find(widget, '[role="alert"] button'), 'no retry for missing credits')
    assert(errors.includes('insufficient_credits'), `parley:error code: ${errors}`)
    // A visitor arriving now is refused a session with the same message.
    widget.remove()
    localStorage.clear()
    const late = createWidget({ 'agent-id': agentId, key: widgetKey })
    late.open()
    await waitFor(() => textOf(late, '[role="alert"]').includes('unavailable'), { message: '402 on create' })
  })

  it('resumes a stream dropped mid-reply and shows the full reply exactly once', async () => {
    const widget = createWidget()
    widget.open()
    await waitFor(() => messages(widget).length === 1)
    await scriptLlm('count to six', {
      text: ['One ', 'two ', 'three ', 'four ', 'five ', 'six.'],
      hold: { atChunk: 3, name: 'drop' },
    })
    await type(widget, 'count to six')
    await waitFor(() => messages(widget).at(-1) === 'One two three ', { message: 'first words' })
    const { conversationId } = storedSession()
    equal((await dropStream(conversationId)).dropped, true, 'connection cut:')
    await release('drop')
    await waitFor(
      () => find(widget, '[part~="send"]') && messages(widget).at(-1) === 'One two three four five six.',
      {
        timeout: 10_000,
        message: () =>
          `the resumed reply, saw ${JSON.stringify(messages(widget))} ${textOf(widget, '[role="alert"]')}`,
      },
    )
    const all = messages(widget)
    equal(all.filter((text) => text.includes('One two')).length, 1, `reply once in ${JSON.stringify(all)}:`)
    assert(!find(widget, '[role="alert"]'), 'no error shown for a resumed drop')
    const sends = await sendsOf(conversationId)
    assert(sends.length >= 2, `the widget came back: ${JSON.stringify(sends)}`)
    assert(
      sends.every((send) => send.idempotencyKey === sends[0].idempotencyKey),
      `one Idempotency-Key: ${JSON.stringify(sends)}`,
    )
    assert(Number(sends.at(-1).lastEventId) > 0, `resumed after an event id: ${JSON.stringify(sends)}`)
    const history = await (await chatApi(storedSession(), '/messages')).json()
    equal(
      history.messages.map((message) => message.content),
      [greetingOf('Support Bot'), 'count to six', 'One two three four five six.'],
      'stored once on the server:',
    )
  })
})
