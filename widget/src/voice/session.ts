/**
 * POST /v1/chat/voice-sessions with the widget key, or the studio's token (spec "Voice session", "Voice session errors"):
 * part of the voice chunk, so none of it weighs on the first load.
 */
import type { CreateVoiceSession, VoiceSession } from '@parley/shared'
import { type Credentials, credentialHeader } from '../credentials.ts'
import type { Continuation, VoiceFailure } from './contract.ts'

/** A call that cannot start or go on, with the code the widget shows a line for. */
export class CallFailure extends Error {
  constructor(readonly failure: VoiceFailure) {
    super(failure)
  }
}

/** The wire shape with no field checked yet: nothing from the network is trusted as it comes. */
type Unchecked<T> = { [K in keyof T]?: unknown }

// 402 is the spec's "insufficient credits"; 500 (and a 502/503 from a proxy) the media server
// failing, or, with code voice_off, a deployment without voice.
const toFailure = (status: number, code: unknown): VoiceFailure =>
  code === 'voice_off'
    ? 'voice_off'
    : status === 402
      ? 'insufficient_credits'
      : status >= 500
        ? 'media_error'
        : 'error'

export const createVoiceSession = async ({
  baseUrl,
  agentId,
  continues = null,
  ...credentials
}: Credentials & {
  baseUrl: string
  agentId: string
  continues?: Continuation | null
}): Promise<{ url: string; token: string; agentName: string }> => {
  let response: Response
  try {
    response = await fetch(`${baseUrl.replace(/\/$/, '')}/v1/chat/voice-sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...credentialHeader(credentials) },
      body: JSON.stringify({
        agent_id: agentId,
        ...(continues && {
          conversation_id: continues.conversationId,
          session_token: continues.sessionToken,
        }),
      } satisfies CreateVoiceSession),
    })
  } catch {
    throw new CallFailure('network')
  }
  const body = (await response.json().catch(() => null)) as
    | (Unchecked<VoiceSession> & { code?: unknown })
    | null
  if (!response.ok) throw new CallFailure(toFailure(response.status, body?.code))
  if (typeof body?.token !== 'string' || typeof body.livekit_url !== 'string') throw new CallFailure('error')
  return {
    url: body.livekit_url,
    token: body.token,
    agentName: typeof body.agent_name === 'string' ? body.agent_name : '',
  }
}
