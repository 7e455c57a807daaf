import { randomBytes } from 'node:crypto'
import type { VoiceSession } from '@parley/shared'
import { sql } from 'kysely'
import { startFakeLiveKit } from './fake-livekit.ts'
import { startFakeLlm } from './fake-llm.ts'
import { startTestServer, type TestServer } from './test-server.ts'

/**
 * Starts a voice session through the API and returns it with the call row's id; `continues` names
 * the chat session (its conversation id and token) the call carries on.
 */
export const startVoiceSession = async (
  server: TestServer,
  {
    key,
    agentId,
    continues,
  }: { key: string; agentId: string; continues?: { conversation_id: string; session_token: string } },
) => {
  const response = await server.request('/v1/chat/voice-sessions', {
    method: 'POST',
    json: {
      agent_id: agentId,
      ...(continues && {
        conversation_id: continues.conversation_id,
        session_token: continues.session_token,
      }),
    },
    headers: { 'x-api-key': key },
  })
  if (response.status !== 200)
    throw new Error(`voice session failed: ${response.status} ${await response.text()}`)
  const session = (await response.json()) as VoiceSession
  const call = await findCallOfRoom(server, session.room_name)
  return { ...session, callId: call.id }
}

export const findCallOfRoom = (server: TestServer, roomName: string) =>
  server.ctx.db.selectFrom('calls').selectAll().where('room_name', '=', roomName).executeTakeFirstOrThrow()

/**
 * Makes a call as if its person and its agent both joined `seconds` ago, so it has a duration
 * worth billing (and is past the sweeper's grace): what the participant webhooks would have done.
 */
export const backdateCall = (server: TestServer, roomName: string, seconds: number) =>
  server.ctx.db
    .updateTable('calls')
    .set({
      started_at: sql`now() - make_interval(secs => ${seconds})`,
      person_joined_at: sql`now() - make_interval(secs => ${seconds})`,
      agent_taken_at: sql`now() - make_interval(secs => ${seconds})`,
      agent_participant_sid: sql`coalesce(agent_participant_sid, 'PA_agent')`,
      billing_since: sql`now() - make_interval(secs => ${seconds})`,
    })
    .where('room_name', '=', roomName)
    .execute()

/** A participant event of a call's room, as LiveKit sends it (kind by its protocol name). */
export const participantEvent = (
  event: 'participant_joined' | 'participant_left',
  {
    roomName,
    identity,
    kind,
    sid = `PA_${identity}`,
  }: { roomName: string; identity: string; kind: string; sid?: string },
) => ({ event, room: { sid: 'RM_x', name: roomName }, participant: { sid, identity, kind } })

export const ledgerOfCall = (server: TestServer, callId: string) =>
  server.ctx.db
    .selectFrom('credit_ledger')
    .select(['amount_micros as amount', 'reason'])
    .where('reference', '=', callId)
    .execute()

/**
 * Gives an agent the custom function `lookup_order`, whose Authorization header is a customer
 * secret, through the API, and enables it (with function calling). Answers the function's id.
 */
export const addLookupOrderFunction = async (
  server: TestServer,
  { key, agentId, host }: { key: string; agentId: string; host: string },
) => {
  const created = await server.request(`/api/custom-functions/${agentId}`, {
    method: 'POST',
    token: key,
    json: {
      name: 'lookup_order',
      label: 'Look up an order',
      description: 'Finds an order by its number',
      endpoint: `https://${host}/orders`,
      headers: { Authorization: 'Bearer customer-secret-9876' },
      parameters: {
        type: 'object',
        properties: { orderNumber: { type: 'string' } },
        required: ['orderNumber'],
      },
    },
  })
  if (created.status !== 201) throw new Error(`custom function not created: ${created.status}`)
  const { id } = (await created.json()) as { id: string }
  await server.ctx.db
    .updateTable('agents')
    .set({ function_calling_enabled: true, enabled_custom_functions: JSON.stringify([id]) })
    .where('id', '=', agentId)
    .execute()
  return id
}

/**
 * The stack the voice and conversation tests share: a server with voice on (the fake LiveKit's
 * Twirp API), the fake model behind LLM_BASE_URL, a worker token, and platform keys for the
 * default STT and TTS, so calls can be set up; `env` adds or replaces variables.
 */
export const startVoiceStack = async ({ env = {} }: { env?: Record<string, string> } = {}) => {
  const fake = await startFakeLiveKit()
  const llm = await startFakeLlm()
  const workerToken = randomBytes(24).toString('hex')
  const server = await startTestServer({
    env: {
      ...fake.env,
      WORKER_TOKEN: workerToken,
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: 'test-llm-key',
      DEEPGRAM_API_KEY: 'dg-platform',
      CARTESIA_API_KEY: 'cartesia-platform',
      ...env,
    },
  })
  return {
    fake,
    llm,
    server,
    workerToken,
    close: async () => {
      await server.destroy()
      await llm.close()
      await fake.close()
    },
  }
}
export type VoiceStack = Awaited<ReturnType<typeof startVoiceStack>>
