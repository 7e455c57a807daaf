// Voice in the widget, in Chromium with a fake microphone, against real servers: `settings.baseUrl`
// has no LiveKit (its voice sessions answer 500); `settings.liveKit` is a second server whose
// LiveKit is the fake Twirp server (server/test/helpers/fake-livekit.ts).
import { executeServerCommand } from '@web/test-runner-commands'
import { assert, cleanUp, createWidget, equal, find, screenshot, settings, waitFor } from './helpers.js'

/** Requests the page made (since `since`, a performance.now() reading), from the browser's own log. */
const resources = (pattern, since = 0) =>
  performance
    .getEntriesByType('resource')
    .filter((entry) => pattern.test(entry.name) && entry.startTime >= since)
const VOICE_CHUNK = /\/widget\/voice-[\w-]+\.js$/
const VOICE_SESSIONS = /\/v1\/chat\/voice-sessions$/

/** A widget whose chat runs on the real API and whose voice agent is the seeded pipeline agent. */
const createVoiceWidget = (attributes = {}) => {
  const widget = createWidget({
    'agent-id': settings.agentId,
    'base-url': settings.baseUrl,
    'voice-agent-id': settings.voiceAgentId,
    ...attributes,
  })
  const states = []
  widget.addEventListener('parley:voice-state', ({ detail }) =>
    states.push(detail.reason ? `${detail.state}:${detail.reason}` : detail.state),
  )
  widget.open()
  return { widget, states }
}

/** A voice-first widget on the second server, whose LiveKit is the fake Twirp server. */
const createLiveKitWidget = () =>
  createVoiceWidget({
    'agent-id': settings.liveKit.voiceAgentId,
    'voice-agent-id': settings.liveKit.voiceAgentId,
    'base-url': settings.liveKit.baseUrl,
    key: settings.liveKit.key,
    mode: 'voice',
  })

/** Presses the microphone button as a keyboard user would: focus, then activate. */
const pressMicrophone = async (widget) => {
  const microphone = await waitFor(() => find(widget, '[part~="voice-start"]'), {
    message: 'microphone button',
  })
  microphone.focus()
  microphone.click()
}

const failureOf = async (widget) =>
  (await waitFor(() => find(widget, '[part~="voice-failure"]'), { message: 'voice failure line' }))
    .textContent

const allowMicrophone = (isAllowed) =>
  executeServerCommand('parley-microphone', { origin: location.origin, isAllowed })

describe('voice', () => {
  beforeEach(() => allowMicrophone(true))
  afterEach(cleanUp)

  it('fetches the voice chunk only once the microphone button is pressed', async () => {
    const { widget, states } = createVoiceWidget()
    // The first load has settled: the chat session is open and its greeting shown.
    await waitFor(() => find(widget, '.message.assistant'), { message: 'greeting' })
    assert(find(widget, 'textarea'), 'the text box is there beside the microphone')
    await screenshot(widget, 'voice-microphone-button')
    equal(resources(VOICE_CHUNK).length, 0, 'voice chunk requests before the press:')
    await pressMicrophone(widget)
    await waitFor(() => resources(VOICE_CHUNK).length === 1, { message: 'the voice chunk request' })
    await waitFor(() => states.at(-1)?.startsWith('ended'), { message: 'the call attempt to end' })
  })

  it('says so when the microphone is denied, asks for no voice session, and falls back to typing', async () => {
    await allowMicrophone(false)
    const since = performance.now()
    const { widget, states } = createVoiceWidget({ mode: 'voice' })
    // Voice-first: the call leads, the text box waits for a reason to be needed.
    const microphone = await waitFor(() => find(widget, '[part~="voice-start"]'), {
      message: 'microphone button',
    })
    assert(!find(widget, 'textarea'), 'no text box before the call in the voice-first panel')
    equal(widget.shadowRoot.activeElement === microphone, true, 'focus on the microphone on open:')
    await pressMicrophone(widget)
    equal(await failureOf(widget), 'Microphone access was denied. You can type instead.')
    equal(states, ['connecting', 'ended:mic_denied'], 'voice states:')
    assert(find(widget, 'textarea'), 'the text box appears in the same panel')
    await screenshot(widget, 'voice-first-microphone-denied')
    equal(resources(VOICE_SESSIONS, since).length, 0, 'voice session requests:')
  })

  it('shows the media-server error when the server cannot create the room', async () => {
    const { widget, states } = createVoiceWidget()
    await pressMicrophone(widget)
    equal(await failureOf(widget), 'The voice service is not reachable right now. Please try again later.')
    equal(states, ['connecting', 'ended:media_error'], 'voice states:')
    // Keyboard users are not dropped to the page's start when the call bar goes.
    await waitFor(() => widget.shadowRoot.activeElement === find(widget, '[part~="voice-start"]'), {
      message: 'focus back on the microphone',
    })
  })

  it('offers no microphone where the deployment has no voice, and says so if a voice-first call is tried', async () => {
    const { voiceOff } = settings
    const chat = createWidget({
      'agent-id': voiceOff.agentId,
      'voice-agent-id': voiceOff.voiceAgentId,
      'base-url': voiceOff.baseUrl,
      key: voiceOff.key,
      position: 'inline',
    })
    // The chat session says voice is off: the microphone goes before anyone can press it.
    await waitFor(() => find(chat, '.message.assistant'), { message: 'greeting' })
    await waitFor(() => !find(chat, '[part~="voice-start"]'), { message: 'no microphone button' })
    assert(find(chat, 'textarea'), 'the text box stays')
    chat.remove()
    // Voice-first has no chat session to ask: its one try says why, and the text box takes over.
    const { widget, states } = createVoiceWidget({
      'agent-id': voiceOff.voiceAgentId,
      'voice-agent-id': voiceOff.voiceAgentId,
      'base-url': voiceOff.baseUrl,
      key: voiceOff.key,
      mode: 'voice',
    })
    await pressMicrophone(widget)
    equal(await failureOf(widget), 'Voice calls are not available here. You can type instead.')
    equal(states, ['connecting', 'ended:voice_off'], 'voice states:')
    assert(find(widget, 'textarea'), 'the text box appears')
    assert(!find(widget, '[part~="voice-start"]'), 'and the microphone is gone for good')
  })

  it('endVoice() ends a call that is still starting, with no reason and no failure line', async () => {
    const { widget, states } = createVoiceWidget()
    const starting = widget.startVoice()
    widget.endVoice()
    await starting
    equal(states, ['connecting', 'ended'], 'voice states:')
    assert(!find(widget, '[part~="voice-failure"]'), 'no failure line for a call the page ended')
    assert(find(widget, '[part~="voice-start"]'), 'the microphone is back')
  })

  it('loads and runs the voice chunk under a strict CSP host page', async () => {
    await executeServerCommand('parley-microphone', { origin: settings.baseUrl, isAllowed: true })
    const result = new Promise((resolve) =>
      window.addEventListener(
        'message',
        (event) => event.data?.type === 'csp-voice-probe' && resolve(event.data),
      ),
    )
    const frame = document.createElement('iframe')
    frame.allow = 'microphone'
    frame.src = `${settings.baseUrl}/csp-test/voice?agent=${settings.voiceAgentId}&key=${encodeURIComponent(settings.key)}`
    document.body.append(frame)
    const outcome = await result
    equal(outcome.violations, [], 'CSP violations:')
    equal(outcome.chunks, 1, 'voice chunk loads:')
    // The chunk ran: it got the microphone and asked the server, which has no LiveKit.
    equal(outcome.reason, 'media_error', 'how the call ended:')
  })

  it('fires the state events in order up to the connection attempt (LiveKit configured)', async () => {
    const { widget, states } = createLiveKitWidget()
    await widget.startVoice()
    await waitFor(() => states.at(-1)?.startsWith('ended'), { message: 'the connection attempt' })
    // The server made the room and dispatched the agent; the fake media server takes no WebSocket.
    const { methods } = await (await fetch(`${settings.liveKit.baseUrl}/test-only/livekit-calls`)).json()
    assert(methods.includes('RoomService/CreateRoom'), `room created: ${methods}`)
    equal(states, ['connecting', 'ended:media_error'], 'voice states:')
    assert(resources(/\/rtc(\/v\d+)?\/validate/).length > 0, 'the media server connection was attempted')
  })

  // Last: it leaves the LiveKit server's demo organization without credits.
  it('says voice is unavailable when the organization is out of credits (402)', async () => {
    const drained = await fetch(`${settings.liveKit.baseUrl}/test-only/drain-credits`, { method: 'POST' })
    equal(drained.status, 200, 'credits emptied:')
    const { widget, states } = createLiveKitWidget()
    await widget.startVoice()
    equal(await failureOf(widget), 'Voice calls are unavailable right now.')
    equal(states, ['connecting', 'ended:insufficient_credits'], 'voice states:')
  })
})
