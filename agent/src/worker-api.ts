import {
  type AmdVerdict,
  type AppendTranscriptBody,
  type CallSetup,
  type CallTransferRequest,
  type InboundCallOpenRequest,
  type SipCallProgress,
  type workerEndReasons,
  ZCallEndResponse,
  ZCallHandoffResponse,
  ZCallKnowledgeResult,
  ZCallOptOutResponse,
  ZCallSetupResponse,
  ZCallSipStatusResponse,
  ZCallTransferResponse,
  ZInboundCallOpenResponse,
  ZTranscriptAppended,
} from '@parley/shared'
import { type FetchContext, ofetch } from 'ofetch'
import { inClientSpan } from './tracing.ts'

/** A worker endpoint answer takes at most this long; a hung server is retried, then given up. */
const REQUEST_TIMEOUT_MS = 10_000

/** Exponential back-off over `attempts` retries: base, 2×, 4×, … (ofetch counts retries down). */
const backOff =
  ({ attempts, baseMs }: { attempts: number; baseMs: number }) =>
  (context: FetchContext) => {
    const remaining = typeof context.options.retry === 'number' ? context.options.retry : attempts
    return baseMs * 2 ** (attempts - remaining)
  }

export type EndReason = (typeof workerEndReasons)[number]

/**
 * The server's worker endpoints (`/v1/calls/{callId}/…`, `Authorization: Bearer WORKER_TOKEN`),
 * answers checked with the shared schemas. Network failures, time-outs, 429 and 5xx are retried
 * with back-off; other answers throw ofetch's FetchError (its message names the method, path and
 * status, never the token). What these return holds provider keys: never log it.
 */
export const createWorkerApi = ({
  apiUrl,
  workerToken,
  retryBaseMs = 250,
}: {
  apiUrl: string
  workerToken: string
  /** The first retry's delay; later ones double it. */
  retryBaseMs?: number
}) => {
  const request = ofetch.create({
    baseURL: apiUrl,
    headers: { authorization: `Bearer ${workerToken}` },
    timeout: REQUEST_TIMEOUT_MS,
    retryStatusCodes: [408, 429, 500, 502, 503, 504],
  })
  const retrying = (attempts: number) => ({
    retry: attempts,
    retryDelay: backOff({ attempts, baseMs: retryBaseMs }),
  })
  const callPath = (callId: string, action: string) => `/v1/calls/${encodeURIComponent(callId)}/${action}`

  return {
    /** Everything secret the call needs (provider endpoints and keys, function headers). */
    setup: async (callId: string): Promise<CallSetup> =>
      ZCallSetupResponse.parse(
        await inClientSpan('worker_api setup', (headers) =>
          request(callPath(callId, 'setup'), { headers, ...retrying(3) }),
        ),
      ).data,

    /**
     * An inbound job: the server opens the call (or refuses it) and answers its dispatch metadata.
     * Retried: the room names the call, so a second request answers the same one.
     */
    openInbound: async (body: InboundCallOpenRequest) =>
      ZInboundCallOpenResponse.parse(
        await inClientSpan('worker_api inbound', (headers) =>
          request('/v1/calls/inbound', { method: 'POST', headers, body, ...retrying(3) }),
        ),
      ).data,

    /** Hands the call to another voice agent of the organization: its configuration and setup. */
    handoff: async (callId: string, agentId: string) =>
      ZCallHandoffResponse.parse(
        await inClientSpan('worker_api handoff', (headers) =>
          request(callPath(callId, 'handoff'), {
            method: 'POST',
            headers,
            body: { agentId },
            ...retrying(2),
          }),
        ),
      ).data,

    /**
     * Ends the call: the server deletes the room, which hangs up a SIP callee. `amdVerdict`: what
     * answering-machine detection decided, on an outbound call where it ran.
     */
    end: async (callId: string, reason: EndReason, amdVerdict?: AmdVerdict) =>
      ZCallEndResponse.parse(
        await inClientSpan('worker_api end', (headers) =>
          request(callPath(callId, 'end'), {
            method: 'POST',
            headers,
            body: amdVerdict === undefined ? { reason } : { reason, amdVerdict },
            ...retrying(3),
          }),
        ),
      ).data,

    /**
     * The outbound callee's `sip.callStatus` changed (dialing, ringing, active): the server records
     * it as the call's event, once (a retried report writes nothing twice).
     */
    sipStatus: async (callId: string, status: SipCallProgress) =>
      ZCallSipStatusResponse.parse(
        await inClientSpan('worker_api sip_status', (headers) =>
          request(callPath(callId, 'sip-status'), {
            method: 'POST',
            headers,
            body: { status },
            ...retrying(2),
          }),
        ),
      ).data,

    /** opt_out: the server lists the call's other party on the do-not-call list (a retry adds nothing twice). */
    optOut: async (callId: string) =>
      ZCallOptOutResponse.parse(
        await inClientSpan('worker_api opt_out', (headers) =>
          request(callPath(callId, 'opt-out'), { method: 'POST', headers, body: {}, ...retrying(2) }),
        ),
      ).data,

    /** Passages for a question from the call's live agent's knowledge sources (one quick retry: a turn waits on it). */
    searchKnowledge: async (callId: string, query: string) =>
      ZCallKnowledgeResult.parse(
        await request(callPath(callId, 'knowledge/search'), {
          method: 'POST',
          body: { query },
          ...retrying(1),
        }),
      ),
    /**
     * transfer_call: starts a transfer to a person of the live agent's destinations (a cold one the
     * server carries out and answers the result of; a warm one answers the line to dial), or
     * reports how a warm one ended. Not retried: a retried REFER could ring the person twice.
     */
    transfer: async (callId: string, body: CallTransferRequest) =>
      ZCallTransferResponse.parse(
        await request(callPath(callId, 'transfer'), { method: 'POST', body, retry: 0 }),
      ).data,

    /** Appends finished turns after those already stored (at most 200 lines a request). */
    appendTranscript: async (callId: string, body: AppendTranscriptBody) =>
      ZTranscriptAppended.parse(
        await inClientSpan('worker_api transcript', (headers) =>
          request(callPath(callId, 'transcript'), { method: 'POST', headers, body, ...retrying(5) }),
        ),
      ).data,
  }
}

export type WorkerApi = ReturnType<typeof createWorkerApi>
