// A call with the voice agent, in Chromium, through the voice chunk's test seam: this page's voice
// chunk is the real one built on a scripted livekit-client room (widget/test/support/
// scripted-livekit.js), so the widget, the chunk's adapter, the voice session on the real server
// (LiveKit configured with the fake Twirp API) all run; the test plays the media server's part.
import { emulateMedia, executeServerCommand } from '@web/test-runner-commands'
import {
  assert,
  cleanUp,
  createWidget,
  equal,
  find,
  findAll,
  messages,
  screenshot,
  settings,
  type,
  waitFor,
} from './helpers.js'

const scripted = () => window.parleyScriptedLiveKit

/** The room of the call in progress, once the widget has connected it with the server's token. */
const connectedRoom = () =>
  waitFor(() => scripted()?.rooms.find((room) => room.connection && !room.isDisconnected), {
    message: 'the widget to connect to the room',
  })

/** The LiveKit room name in the participant token the real server issued. */
const roomNameOf = (room) => {
  const payload = room.connection.token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')
  return JSON.parse(atob(payload)).video.room
}

const startCall = async () => {
  const widget = createWidget({
    'agent-id': settings.liveKit.voiceAgentId,
    'voice-agent-id': settings.liveKit.voiceAgentId,
    'base-url': settings.liveKit.baseUrl,
    key: settings.liveKit.key,
    mode: 'voice',
  })
  const states = []
  widget.addEventListener('parley:voice-state', ({ detail }) =>
    states.push(detail.reason ? `${detail.state}:${detail.reason}` : detail.state),
  )
  widget.open()
  await widget.startVoice()
  return { widget, states, room: await connectedRoom() }
}

/** A screenshot mid-call (helpers' screenshot waits for the send button, which a call has not). */
const callScreenshot = async (name) => {
  await emulateMedia({ reducedMotion: 'reduce', colorScheme: 'light' })
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))
  await executeServerCommand('parley-screenshot', { name })
}

const stateLine = (widget) => find(widget, '[part~="voice-state"]')?.textContent ?? ''

describe('voice agent (scripted media server)', () => {
  before(async () => {
    await executeServerCommand('parley-microphone', { origin: location.origin, isAllowed: true })
    await executeServerCommand('parley-scripted-voice', { isOn: true })
  })
  // The next test file may run in this same page: it gets the real chunk again.
  after(() => executeServerCommand('parley-scripted-voice', { isOn: false }))
  afterEach(cleanUp)

  it('stays connecting while no agent is in the room, listens once the agent joins, shows its captions', async () => {
    const { widget, states, room } = await startCall()
    // Connected to the room the server made, with its token; no agent yet.
    assert(room.connection.url.startsWith('ws'), `LiveKit URL from the server: ${room.connection.url}`)
    equal(states, ['connecting'], 'voice states before the agent joins:')
    // The voice-first panel has no chat session: its title is the voice session's agent.
    await waitFor(() => find(widget, '.title')?.textContent === 'Parley Voice', {
      message: () => `the voice agent's name as the title, saw ${find(widget, '.title')?.textContent}`,
    })
    await callScreenshot('voice-agent-connecting')
    room.agentJoins()
    await waitFor(() => states.at(-1) === 'listening', { message: () => `listening, saw ${states}` })
    equal(states, ['connecting', 'listening'], 'voice states once the agent joined:')
    // The agent's greeting as LiveKit Agents streams it: one segment in chunks, then final.
    await room.caption({ segmentId: 'SG_greeting', chunks: ['Hello, ', 'how can I help?'] })
    await waitFor(
      () => findAll(widget, '.message').some((m) => m.textContent.includes('Hello, how can I help?')),
      {
        message: 'the caption in the transcript',
      },
    )
    await callScreenshot('voice-agent-listening')
    widget.endVoice()
    await waitFor(() => room.isDisconnected, { message: 'the widget to leave the room' })
  })

  it('keeps one timeline across typing and talking: spoken turns between typed ones, after a reload too', async () => {
    // A widget with a text agent and a voice agent of its own: the call continues the chat.
    const attributes = {
      'agent-id': settings.liveKit.textAgentId,
      'voice-agent-id': settings.liveKit.voiceAgentId,
      'base-url': settings.liveKit.baseUrl,
      key: settings.liveKit.key,
      position: 'inline',
    }
    const said = (widget) => messages(widget).filter((text) => /blue mug|red one|Thanks/.test(text))
    let widget = createWidget(attributes)
    await type(widget, 'Do you have a blue mug?')
    await waitFor(() => said(widget).length === 2 && find(widget, '[part~="send"]'), {
      message: () => `the typed reply, saw ${said(widget)}`,
    })
    await widget.startVoice()
    const room = await connectedRoom()
    room.agentJoins()
    // The agent's words as captions, and as the worker posts them to the call's transcript.
    await room.caption({ segmentId: 'SG_red', chunks: ['We have a red one ', 'too.'] })
    const speak = await fetch(`${settings.liveKit.baseUrl}/test-only/speak`, {
      method: 'POST',
      body: JSON.stringify({
        roomName: roomNameOf(room),
        lines: [{ role: 'assistant', content: 'We have a red one too.' }],
      }),
    })
    equal(speak.status, 200, 'transcript posted:')
    widget.endVoice()
    await waitFor(() => room.isDisconnected, { message: 'the widget to leave the room' })
    await type(widget, 'Thanks, the red one please')
    await waitFor(() => said(widget).length === 5 && find(widget, '[part~="send"]'), {
      message: () => `the second typed reply, saw ${said(widget)}`,
    })
    const live = said(widget)
    // The page again: the history brings back the one timeline, spoken line marked as spoken.
    widget.remove() // the stored session stays, as on a reload
    widget = createWidget(attributes)
    await waitFor(() => said(widget).length === 5, {
      message: () => `restored timeline, saw ${said(widget)}`,
    })
    equal(said(widget), live, 'timeline after reload:')
    const spoken = findAll(widget, '.message.spoken').map((element) => element.textContent)
    equal(spoken, ['We have a red one too.'], 'spoken lines:')
    assert(said(widget)[0] === 'Do you have a blue mug?', 'typed first')
    assert(said(widget)[2] === 'We have a red one too.', 'the spoken turn between the typed ones')
    await screenshot(widget, 'voice-one-timeline')
  })

  it('says the voice agent is unavailable and offers typing when the server gives up on the agent', async () => {
    const { widget, states, room } = await startCall()
    const roomName = roomNameOf(room)
    // No agent joins: the server's agent check ends the call (agent_unavailable) and deletes the room.
    await waitFor(
      async () => {
        const response = await fetch(`${settings.liveKit.baseUrl}/test-only/livekit-calls`)
        return (await response.json()).deletedRooms.includes(roomName)
      },
      { timeout: 20_000, message: `the server to delete room ${roomName}` },
    )
    equal(states, ['connecting'], 'voice states while waiting for an agent:')
    // LiveKit disconnects everyone in a deleted room.
    room.closedByServer()
    const failure = await waitFor(() => find(widget, '[part~="voice-failure"]'), { message: 'failure line' })
    equal(
      failure.textContent,
      'The voice agent is unavailable right now. You can type instead.',
      'failure line:',
    )
    equal(states, ['connecting', 'ended:agent_unavailable'], 'voice states:')
    assert(find(widget, 'textarea'), 'the text box is offered in the same panel')
    assert(!stateLine(widget).includes('Listening'), 'never said listening')
    await screenshot(widget, 'voice-agent-unavailable')
  })
})
