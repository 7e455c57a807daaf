import type { VoiceSession } from '@parley/shared'
import { sql } from 'kysely'
import type { TestServer } from './test-server.ts'

/** Starts a voice session through the API and returns it with the call row's id. */
export const startVoiceSession = async (
  server: TestServer,
  { key, agentId }: { key: string; agentId: string },
) => {
  const response = await server.request('/v1/chat/voice-sessions', {
    method: 'POST',
    json: { agent_id: agentId },
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
