import { assert, cleanUp, createWidget, find, messages, textOf, type, waitFor } from './helpers.js'

describe('error paths', () => {
  afterEach(cleanUp)

  it('shows an upstream error event in place, and retry sends again', async () => {
    const widget = createWidget()
    const errors = []
    widget.addEventListener('parley:error', (event) => errors.push(event.detail.code))
    widget.open()
    await waitFor(() => messages(widget).length === 1)
    await type(widget, 'fail')
    await waitFor(() => textOf(widget, '[role="alert"]').includes('Something went wrong.'), {
      message: 'error notice',
    })
    assert(errors.includes('stream_error'), `parley:error carries the code, got ${errors}`)
    assert(find(widget, '[role="alert"] button'), 'a retry button')
  })

  it('counts down a 429 from Retry-After and blocks sending meanwhile', async () => {
    const widget = createWidget()
    widget.open()
    await waitFor(() => messages(widget).length === 1)
    await type(widget, 'flood')
    await waitFor(() => textOf(widget, '[role="alert"]').includes('Try again in 3 s'), {
      message: 'countdown from 3',
    })
    assert(find(widget, '[role="alert"] button').disabled, 'retry waits for the countdown')
    assert(find(widget, 'textarea').disabled, 'the composer waits too')
    await waitFor(() => textOf(widget, '[role="alert"]').includes('Try again in 2 s'), {
      message: 'countdown ticks',
    })
    await waitFor(() => !find(widget, '[role="alert"] button').disabled, {
      timeout: 5000,
      message: 'retry enabled',
    })
  })

  it('says the chat is unavailable on 402', async () => {
    const widget = createWidget({ 'agent-id': 'agent-without-credits' })
    widget.open()
    await waitFor(() => textOf(widget, '[role="alert"]').includes('unavailable'), { message: '402 notice' })
    assert(!find(widget, '[role="alert"] button'), 'no retry for missing credits')
  })

  it('resumes a stream dropped mid-reply and shows the full reply exactly once', async () => {
    const widget = createWidget()
    widget.open()
    await waitFor(() => messages(widget).length === 1)
    await type(widget, 'drop')
    await waitFor(() => messages(widget).at(-1) === 'One two three four five six.', {
      message: 'resumed reply',
    })
    await waitFor(() => find(widget, '[part~="send"]'))
    const all = messages(widget)
    assert(all.filter((text) => text.includes('One two')).length === 1, `reply once: ${JSON.stringify(all)}`)
    assert(!find(widget, '[role="alert"]'), 'no error shown for a resumed drop')
  })
})
