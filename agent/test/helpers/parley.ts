import { randomBytes } from 'node:crypto'
import type { Call } from '@parley/shared'
import { expect, vi } from 'vitest'
import { type FakeLiveKit, startFakeLiveKit } from '../../../server/test/helpers/fake-livekit.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../../server/test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../../server/test/helpers/test-server.ts'
import { startVoiceSession } from '../../../server/test/helpers/voice.ts'

/**
 * A real Parley server for the worker's tests: LiveKit's API is the suite's fake (rooms and
 * dispatches recorded), WORKER_TOKEN is set, the default voice agent's STT and TTS providers have
 * platform keys (nothing here reaches them: text mode uses no STT or TTS; its LLM is the caller's
 * choice: LLM_BASE_URL or OPENAI_API_KEY in `env`), and calls are started through the
 * real voice-session API, so the worker gets the very metadata the server dispatches.
 */
export const startParley = async ({ env = {} }: { env?: Record<string, string> } = {}) => {
  const livekit: FakeLiveKit = await startFakeLiveKit()
  const workerToken = randomBytes(32).toString('hex')
  const server: TestServer = await startTestServer({
    env: {
      ...livekit.env,
      WORKER_TOKEN: workerToken,
      DEEPGRAM_API_KEY: 'dg-platform-key',
      CARTESIA_API_KEY: 'ca-platform-key',
      ...env,
    },
  })
  const team = await createTeam(server)
  const key = await secretKeyFor(server, team.owner)

  /** A voice agent of the team, made through the agents service with valid defaults. */
  const makeVoiceAgent = (overrides: Record<string, unknown> = {}) =>
    makeAgent(server, team.owner, { agentArchitecture: 'pipeline', ...overrides })

  /**
   * Starts a web call to the agent (continuing a chat session when `continues` names one); answers
   * the call id, its room and the dispatch metadata.
   */
  const startCall = async (
    agentId: string,
    continues?: { conversation_id: string; session_token: string },
  ) => {
    const session = await startVoiceSession(server, { key, agentId, ...(continues && { continues }) })
    const dispatch = livekit
      .callsTo('AgentDispatchService/CreateDispatch')
      .find((call) => call.body.room === session.room_name)
    if (!dispatch) throw new Error(`no dispatch for room ${session.room_name}`)
    return { callId: session.callId, roomName: session.room_name, metadata: String(dispatch.body.metadata) }
  }

  /** The call as the API shows it, with its transcript. */
  const readCall = async (callId: string) => {
    const response = await server.request(`/v1/calls/${callId}`, { headers: { 'x-api-key': key } })
    if (response.status !== 200) throw new Error(`GET call ${callId}: ${response.status}`)
    const body = (await response.json()) as {
      data: Call & {
        transcript: { role: string; content: string; position: number; interrupted: boolean }[]
        toolCalls: unknown[]
      }
    }
    return body.data
  }

  /** Waits (at most 30 s) for the call to have ended for `reason`. */
  const callEnds = (callId: string, reason: string) =>
    vi.waitFor(
      async () => expect(await readCall(callId)).toMatchObject({ status: 'ended', endReason: reason }),
      { timeout: 30_000 },
    )

  return {
    server,
    livekit,
    workerToken,
    team,
    key,
    makeVoiceAgent,
    startCall,
    readCall,
    callEnds,
    close: async () => {
      await server.destroy()
      await livekit.close()
    },
  }
}

export type Parley = Awaited<ReturnType<typeof startParley>>
