import { inference, initializeLogger, log, voice } from '@livekit/agents'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setBalanceMicros } from '../../server/test/helpers/billing.ts'
import { type FakeLlm, startFakeLlm } from '../../server/test/helpers/fake-llm.ts'
import { type Parley, startParley } from '../test/helpers/parley.ts'
import { answerInbound, type Refusal, readInboundJob, sayRefusal } from './inbound.ts'
import { buildCallSession } from './session.ts'
import { createWorkerApi, type WorkerApi } from './worker-api.ts'
import '../test/helpers/plugins.ts'

/**
 * The worker's inbound open in the framework's text mode: a job LiveKit dispatches for a caller
 * (the suite's fake LiveKit routes the call through the trunk and dispatch rule Parley made; its
 * SIP participant carries LiveKit's `sip.*` attributes) asks a real Parley server to open the
 * call, then runs it as any call — or says the refusal and hangs up.
 */

initializeLogger({ pretty: false, level: 'fatal' })

let parley: Parley
let llm: FakeLlm
let api: WorkerApi
const vad = new inference.VAD()

beforeAll(async () => {
  llm = await startFakeLlm()
  parley = await startParley({ env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'sk-fake' } })
  api = createWorkerApi({ apiUrl: parley.server.url, workerToken: parley.workerToken })
}, 180_000)

afterAll(async () => {
  await parley?.close()
  await llm?.close()
})

const answeringNumber = async (number: string) => {
  const agent = await parley.makeVoiceAgent({
    greetingType: 'userFirst',
    systemPrompt: 'You answer the phone for Acme. The caller is {{caller_number}}.',
  })
  const created = await parley.server.request('/v1/phone-numbers', {
    method: 'POST',
    token: parley.key,
    json: { number, sipTrunkId: 'ST_main', inboundAgentId: agent.id },
  })
  expect(created.status).toBe(201)
  return agent
}

/** A caller rings: the job LiveKit dispatches, and the worker's side of answering it. */
const ring = (number: string, caller: string) => {
  const call = parley.livekit.ringInbound(number, caller)
  const job = readInboundJob(call.roomName, call.jobMetadata)
  if (!job) throw new Error('not an inbound job')
  const refusals: Refusal[] = []
  const hangUps: string[] = []
  const answer = (
    say: (refusal: Refusal) => Promise<void> = async (refusal) => void refusals.push(refusal),
  ) =>
    answerInbound({
      api,
      job,
      roomName: call.roomName,
      caller: call.participant,
      agentParticipantSid: 'PA_worker',
      say,
      hangUp: async (reason) => void hangUps.push(reason),
    })
  return { call, job, answer, refusals, hangUps }
}

describe('an inbound job', { timeout: 60_000 }, () => {
  it('opens the call on the server and runs it with {{caller_number}} filled', async () => {
    const agent = await answeringNumber('+14155550300')
    const inbound = ring('+14155550300', '+14155550888')
    expect(readInboundJob('agent_room', inbound.call.jobMetadata)).toBeNull()

    const metadata = await inbound.answer()
    if (!metadata) throw new Error('refused')
    expect(metadata).toMatchObject({
      direction: 'inbound',
      roomName: inbound.call.roomName,
      sipParticipantIdentity: inbound.call.participant.identity,
      callerNumber: '+14155550888',
    })
    expect(inbound.hangUps).toEqual([])

    const setup = await api.setup(metadata.callId)
    const built = buildCallSession({
      metadata,
      setup,
      services: {
        api,
        allowHosts: [],
        vad,
        shutdown: () => undefined,
        logger: log(),
        keypad: null,
        warmTransfer: null,
      },
    })
    try {
      await built.session.start({ agent: built.agent })
      llm.queue({ text: ['Acme, how can I help?'] })
      const result = await built.session.run({ userInput: 'Hello?' }).wait()
      result.expect.nextEvent().isMessage({ role: 'assistant' })
      const system = llm.requests.at(-1)?.messages.find((message) => message.role === 'system')
      expect(String(system?.content)).toContain('The caller is +14155550888.')
    } finally {
      await built.session.close()
      llm.reset()
    }
    const record = await parley.readCall(metadata.callId)
    expect(record).toMatchObject({
      direction: 'inbound',
      agentId: agent.id,
      phoneNumber: '+14155550888',
      calledNumber: '+14155550300',
    })
  })

  it('says the refusal without credits and hangs up; nothing runs', async () => {
    await answeringNumber('+14155550310')
    await setBalanceMicros(parley.server, { organizationId: parley.team.organizationId, micros: 0 })
    try {
      const inbound = ring('+14155550310', '+14155550889')
      // The refusal said in a session of its own, in text mode here (a room and a TTS in a job).
      const session = new voice.AgentSession({})
      await session.start({ agent: new voice.Agent({ instructions: '' }) })
      const said: string[] = []
      const metadata = await inbound.answer(async (refusal) => {
        inbound.refusals.push(refusal)
        await sayRefusal(session, refusal)
        said.push(
          ...session.history.items.flatMap((item) =>
            item.type === 'message' && item.role === 'assistant' ? [item.textContent ?? ''] : [],
          ),
        )
      })
      expect(metadata).toBeNull()
      expect(inbound.refusals).toMatchObject([{ accepted: false, reason: 'insufficient_credits' }])
      expect(said).toEqual([inbound.refusals[0]?.message])
      expect(inbound.hangUps).toEqual(['inbound call refused: insufficient_credits'])
      const callId = inbound.refusals[0]?.callId
      if (!callId) throw new Error('no call record')
      expect(await parley.readCall(callId)).toMatchObject({
        direction: 'inbound',
        status: 'failed',
        endReason: 'insufficient_credits',
      })
      expect(llm.requests).toHaveLength(0)
    } finally {
      await setBalanceMicros(parley.server, {
        organizationId: parley.team.organizationId,
        micros: 100_000_000,
      })
    }
  })
})
