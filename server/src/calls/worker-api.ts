import type { AmdVerdict, CallSetup, SipCallProgress, VersionFunction, WorkerEndReason } from '@parley/shared'
import type { AgentRow } from '../agents/index.ts'
import * as agentStore from '../agents/index.ts'
import { analysisModelOf } from '../analysis/index.ts'
import * as chatStore from '../chat/index.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import { recallMemory } from '../memory/index.ts'
import { type EndpointRequest, providerVoiceOf, resolveEndpoints } from '../providers/registry.ts'
import { settleLateWorkerEnd } from './close.ts'
import { findContactOfCall } from './contacts.ts'
import { agentRuntimeConfig, configForContact, listWorkerFunctions } from './dispatch-metadata.ts'
import { recordCallProgress } from './events.ts'
import { decisiveWorkerReasons, outcomeOfClose } from './outcome.ts'
import { switchLiveAgent } from './presence.ts'
import { voiceRateFor } from './pricing.ts'
import { deleteCallRoom } from './rooms.ts'
import { type CallRow, closeCall } from './service.ts'
import * as callStore from './store.ts'

/**
 * The voice agent worker's endpoints (WORKER_TOKEN): what a call needs that may not travel in
 * dispatch metadata (provider keys, function headers), a handoff to another agent, and the end
 * of a call. An unknown call id answers 404.
 */

const findCall = async (ctx: AppContext, callId: string) => {
  const call = await callStore.findCallById(ctx.db, callId)
  if (!call) throw AppError.notFound('call')
  return call
}

const callEnded = () => AppError.conflict('The call has ended', 'call_ended')

/** The agent answering the call now: the dispatched one, or the last handoff's. */
const findLiveAgent = async (ctx: AppContext, call: CallRow) => {
  const agent = await agentStore.findServingAgent(ctx.db, {
    organizationId: call.organizationId,
    id: call.liveAgentId ?? call.agentId,
  })
  if (!agent || agent.agentArchitecture === 'text') throw AppError.notFound('agent')
  return agent
}

const request = (kind: EndpointRequest['kind'], id: string | null) => (id === null ? null : { kind, id })

/**
 * One of the agent's fallbacks (model, STT, TTS), resolved like its primary. A fallback this
 * deployment can no longer serve (its provider's key removed since the agent was saved) must not
 * stop the call its primary can serve: the call goes on without one, and the operator reads why.
 */
const fallbackEndpointFor = async (
  ctx: AppContext,
  {
    agent,
    organizationId,
    kind,
    id,
  }: { agent: AgentRow; organizationId: string } & {
    kind: 'model' | 'stt' | 'tts'
    id: string | null
  },
) => {
  if (!id) return null
  try {
    const { endpoint } = await resolveEndpoints(ctx, {
      organizationId,
      requests: { endpoint: request(kind, id) },
    })
    return endpoint ?? null
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    ctx.logger.warn(
      { agentId: agent.id, kind, fallback: id, reason: error.message },
      `voice call without its fallback ${kind}`,
    )
    return null
  }
}

/** The voice a fallback TTS speaks in: its first catalogue voice, or the agent's own voice id. */
const fallbackVoiceOf = (ctx: AppContext, { tts, voice }: { tts: string; voice: string }) => {
  const own = ctx.catalogue.voices.find((candidate) => candidate.provider === tts)
  return own ? providerVoiceOf(ctx.catalogue, own.voiceId) : voice
}

/**
 * Everything secret an agent's call needs: its model endpoints resolved with the organization's
 * own key for each provider where it stored one (the platform's otherwise), its custom functions
 * with their headers, and web search when the agent uses it and the deployment has it.
 */
export const callSetupFor = async (
  ctx: AppContext,
  agent: AgentRow,
  /** The call's organization: its own provider keys serve it, also with another's commercial agent. */
  organizationId: string,
  /** A version's own function definitions (a voice test run on a numbered version); else the current ones. */
  versionFunctions: VersionFunction[] | null = null,
): Promise<CallSetup> => {
  const isRealtime = agent.agentArchitecture === 'realtime'
  const [endpoints, functions] = await Promise.all([
    resolveEndpoints(ctx, {
      organizationId,
      requests: {
        llm: isRealtime ? null : request('model', agent.model),
        stt: isRealtime ? null : request('stt', agent.stt),
        tts: isRealtime ? null : request('tts', agent.tts),
        realtime: isRealtime ? request('realtime', agent.realtimeProvider) : null,
      },
    }),
    listWorkerFunctions(ctx, agent, versionFunctions),
  ])
  // A pipeline agent's fallbacks stand in for its own parts; a realtime agent's three together
  // are the pipeline the worker continues the call on when the realtime model fails.
  const [fallbackLlm, fallbackStt, fallbackTts] = await Promise.all([
    fallbackEndpointFor(ctx, { agent, organizationId, kind: 'model', id: agent.fallbackModel }),
    fallbackEndpointFor(ctx, { agent, organizationId, kind: 'stt', id: agent.fallbackStt }),
    fallbackEndpointFor(ctx, { agent, organizationId, kind: 'tts', id: agent.fallbackTts }),
  ])
  const voice = agent.voiceId === null ? null : providerVoiceOf(ctx.catalogue, agent.voiceId)
  const ttsVoice = voice ?? providerVoiceOf(ctx.catalogue, ctx.catalogue.defaults.voiceId)
  const language = agent.languages[0] ?? 'en'
  const usesSearch = agent.functionCallingEnabled && agent.enabledFunctions.includes('web_search')
  return {
    llm: endpoints.llm,
    fallbackLlm,
    stt: endpoints.stt && { ...endpoints.stt, language },
    tts: endpoints.tts && { ...endpoints.tts, voice: ttsVoice },
    fallbackStt: fallbackStt && { ...fallbackStt, language },
    fallbackTts: fallbackTts && {
      ...fallbackTts,
      voice: fallbackVoiceOf(ctx, { tts: agent.fallbackTts ?? '', voice: ttsVoice }),
    },
    realtime: endpoints.realtime && { ...endpoints.realtime, voice },
    functions,
    webSearch: usesSearch && ctx.config.search ? { ...ctx.config.search } : null,
    history: [],
    memory: null,
    amd: null,
  }
}

/**
 * What answering-machine detection runs on in an outbound call of a realtime agent (CallSetup's
 * `amd`): its analysisModel or the catalogue's default text model (analysisModelOf, as post-call
 * analysis), and the catalogue's default STT, each with the organization's key where it stored
 * one, else the platform's. A part this deployment cannot serve is left out (null STT: the
 * realtime model's own transcription; no text model: no detection), never failing the call.
 */
const detectionEndpointsFor = async (ctx: AppContext, agent: AgentRow, organizationId: string) => {
  const resolve = async (kind: 'model' | 'stt', id: string) => {
    try {
      const { endpoint } = await resolveEndpoints(ctx, {
        organizationId,
        requests: { endpoint: request(kind, id) },
      })
      return endpoint ?? null
    } catch (error) {
      if (!(error instanceof AppError)) throw error
      ctx.logger.warn(
        { agentId: agent.id, kind, id, reason: error.message },
        `answering-machine detection without its ${kind}`,
      )
      return null
    }
  }
  const model = analysisModelOf(ctx, agent)
  const [llm, stt] = await Promise.all([
    model ? resolve('model', model) : null,
    resolve('stt', ctx.catalogue.defaults.stt),
  ])
  return llm ? { llm, stt: stt && { ...stt, language: agent.languages[0] ?? 'en' } } : null
}

/** How many of a continued conversation's latest turns the voice agent hears (as text chat's prompt does). */
const CONTINUED_TURNS = 20

/**
 * Whose memory a call recalls: the conversation it continues (its user_identifier's, as chat
 * decided), else a phone call's other party by number (`user:+15551234567`, the identity a chat
 * with that user_identifier has too); none for a web call of its own.
 */
const memoryIdentityOf = async (ctx: AppContext, call: CallRow) => {
  if (call.conversationId) {
    const conversation = await chatStore.findConversation(ctx.db, call.conversationId)
    if (conversation?.memoryIdentity) return conversation.memoryIdentity
  }
  return call.phoneNumber ? `user:${call.phoneNumber}` : null
}

/** What the agent remembers of the call's person, as chat recalls it; null for a stranger. */
const recallCallMemory = async (ctx: AppContext, call: CallRow) => {
  const identity = await memoryIdentityOf(ctx, call)
  return identity ? recallMemory(ctx, { organizationId: call.organizationId, identity }) : null
}

/** GET /v1/calls/{callId}/setup. Asking is the worker taking the call: no agent-join deadline then. */
export const getCallSetup = async (ctx: AppContext, callId: string) => {
  const call = await findCall(ctx, callId)
  if (call.status !== 'active') throw callEnded()
  await callStore.markAgentTaken(ctx.db, call.id)
  const agent = await findLiveAgent(ctx, call)
  const detects = call.direction === 'outbound' && agent.agentArchitecture === 'realtime'
  const [setup, history, memory, amd] = await Promise.all([
    callSetupFor(ctx, agent, call.organizationId),
    call.conversationId
      ? chatStore.listTurnsBefore(ctx.db, {
          conversationId: call.conversationId,
          callId: call.id,
          limit: CONTINUED_TURNS,
        })
      : [],
    recallCallMemory(ctx, call),
    detects ? detectionEndpointsFor(ctx, agent, call.organizationId) : null,
  ])
  return { success: true as const, data: { ...setup, history, memory, amd } }
}

/** The agent's configuration for this call: a batch call's placeholders filled from its contact. */
const runtimeConfigForCall = async (ctx: AppContext, { call, agent }: { call: CallRow; agent: AgentRow }) => {
  const config = await agentRuntimeConfig(ctx, agent, call.organizationId)
  if (!call.batchContactId) return config
  const contact = await findContactOfCall(ctx, {
    organizationId: call.organizationId,
    id: call.batchContactId,
  })
  return contact ? configForContact(config, contact).agent : config
}

/**
 * POST /v1/calls/{callId}/handoff: the worker hands the call to another voice agent of the
 * organization that the live agent lists in its handoffAgentIds. The call records the agent live
 * from now; its minutes are billed at the price of the agent live at the time.
 */
export const handOffCall = async (
  ctx: AppContext,
  { callId, agentId }: { callId: string; agentId: string },
) => {
  const call = await findCall(ctx, callId)
  if (call.status !== 'active') throw callEnded()
  const current = await findLiveAgent(ctx, call)
  const [target] = await agentStore.findAgentsByIds(ctx.db, {
    organizationId: current.organizationId,
    ids: [agentId],
    onlyCommercial: current.organizationId !== call.organizationId,
  })
  if (!target) throw AppError.notFound('agent')
  if (!current.handoffAgentIds.includes(target.id))
    throw AppError.badRequest(
      `agentId: ${target.id} is not one of the handoffAgentIds of ${current.name}`,
      'invalid_handoff_target',
    )
  if (target.agentArchitecture === 'text')
    throw AppError.badRequest(
      `agentId: ${target.id} is a text agent, not a voice agent`,
      'invalid_handoff_target',
    )
  // Everything the new agent needs is resolved before the call changes hands.
  const [agent, setup, microsPerMinute, memory] = await Promise.all([
    runtimeConfigForCall(ctx, { call, agent: target }),
    callSetupFor(ctx, target, call.organizationId),
    voiceRateFor(ctx, { agent: target, organizationId: call.organizationId }),
    recallCallMemory(ctx, call),
  ])
  const switched = await switchLiveAgent(ctx, {
    callId: call.id,
    agent: { id: target.id, architecture: target.agentArchitecture, microsPerMinute },
  })
  if (!switched) throw callEnded()
  return { success: true as const, data: { agent, setup: { ...setup, memory } } }
}

/**
 * POST /v1/calls/{callId}/end: the agent ended the call (end_call, inactivity, an error, what
 * answering-machine detection heard, an opt-out). Closed through closeCall with that reason (the
 * call's outcome, calls/outcome.ts) and the detector's verdict, and its room deleted, which hangs up a SIP callee. Asked
 * again, nothing more closes (`ended: false`); the room is asked to go again, in case it stayed.
 * After a webhook's close, a decisive reason refines its outcome and the `ended` event held for
 * the worker goes out (close.ts, settleLateWorkerEnd).
 */
export const endCallByWorker = async (
  ctx: AppContext,
  {
    callId,
    reason,
    amdVerdict,
  }: { callId: string; reason: WorkerEndReason; amdVerdict?: AmdVerdict | undefined },
) => {
  const call = await findCall(ctx, callId)
  const verdict = amdVerdict ?? null
  const closed = await closeCall(ctx, { roomName: call.roomName, reason, amdVerdict: verdict })
  // A webhook closed it first (the machine hung up while the agent spoke): the worker knows better,
  // and the `ended` event and call.ended held for it go out now with the final outcome.
  if (!closed)
    await settleLateWorkerEnd(ctx, {
      callId,
      refine: decisiveWorkerReasons.has(reason)
        ? { outcome: outcomeOfClose({ reason, status: 'ended' }), amdVerdict: verdict }
        : null,
    })
  await deleteCallRoom(ctx, { roomName: call.roomName, why: 'a call its agent ended' })
  return { success: true as const, data: { ended: closed !== null } }
}

/** The call event each reported `sip.callStatus` stands for. */
const stepOfSipStatus = { dialing: 'dialing', ringing: 'ringing', active: 'answered' } as const

/**
 * POST /v1/calls/{callId}/sip-status: the worker saw the outbound callee's `sip.callStatus`
 * change (LiveKit's webhooks carry no attribute changes, so only a participant in the room sees
 * `ringing`). Recorded as the call's `dialing`, `ringing` or `answered` event, once each and in
 * order (events.ts recordCallProgress): a repeated or late report writes nothing and answers
 * `recorded: null`, as does one for a call that has ended. A web call has no SIP callee (400).
 */
export const reportSipStatus = async (
  ctx: AppContext,
  { callId, status }: { callId: string; status: SipCallProgress },
) => {
  const call = await findCall(ctx, callId)
  if (call.direction === 'web')
    throw AppError.badRequest('A web call has no SIP callee to report the status of')
  const step = stepOfSipStatus[status]
  const written = await recordCallProgress(ctx, { callId, step })
  return { success: true as const, data: { recorded: written ? step : null } }
}
