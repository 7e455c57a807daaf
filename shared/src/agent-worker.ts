import { z } from 'zod'
import { defaultVoicemailSetting, ZRealtimeProvider, ZVoicemailSetting } from './agents.ts'

/**
 * The contract between the server and the voice agent worker (`agent/`).
 *
 * Dispatch metadata travels through LiveKit, which stores and shows it (dashboards, room admins,
 * logs): it carries no secret. Everything secret (custom-function headers, provider keys) the
 * worker reads from the server's worker endpoints under /v1/calls/{callId}/…, with
 * `Authorization: Bearer $WORKER_TOKEN`.
 */

/** A custom function as the model sees it; its headers are fetched from the setup endpoint. */
export const ZRuntimeFunction = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH']),
  endpoint: z.string(),
  parameters: z.record(z.string(), z.unknown()),
})
export type RuntimeFunction = z.infer<typeof ZRuntimeFunction>

/** An agent the call may be handed to (the agent's `handoffAgentIds` that are voice agents). */
export const ZHandoffTarget = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
})
export type HandoffTarget = z.infer<typeof ZHandoffTarget>

/**
 * A person the agent may transfer the call to (the agent's transferDestinations): the name the
 * model passes to transfer_call, when to use it, and how. Where it rings is not here: the server
 * answers it on POST /v1/calls/{callId}/transfer, so numbers do not travel in dispatch metadata.
 */
export const ZRuntimeTransferDestination = z.object({
  name: z.string(),
  whenToUse: z.string(),
  mode: z.enum(['cold', 'warm']),
})
export type RuntimeTransferDestination = z.infer<typeof ZRuntimeTransferDestination>

/** What the worker runs a call with: the agent's settings, ids as in the catalogue. */
export const ZAgentRuntimeConfig = z.object({
  id: z.string(),
  name: z.string(),
  architecture: z.enum(['pipeline', 'realtime']),
  /** The system prompt; for batch calls `{{field}}` placeholders are already filled. */
  prompt: z.string().nullable(),
  /** Catalogue ids (not provider ids): the setup endpoint resolves them. */
  model: z.string().nullable(),
  stt: z.string().nullable(),
  tts: z.string().nullable(),
  voice: z.string().nullable(),
  realtimeProvider: ZRealtimeProvider.nullable(),
  greetingType: z.enum(['agentFirst', 'userFirst']),
  greeting: z.string().nullable(),
  lastMessage: z.string().nullable(),
  temperature: z.number(),
  /** Seconds of the person's silence before the agent says lastMessage and ends the call. */
  inactivityTimeout: z.number().int(),
  /** Language codes (en, ur, sd), the first is the main one. */
  languages: z.array(z.string()),
  functionCallingEnabled: z.boolean(),
  /** Built-in function ids (`end_call`, `web_search`), empty when function calling is off. */
  builtInFunctions: z.array(z.string()),
  customFunctions: z.array(ZRuntimeFunction),
  handoffAgents: z.array(ZHandoffTarget),
  /**
   * The agent has knowledge sources: the worker gives each reply the passages found for the
   * person's words (POST /v1/calls/{callId}/knowledge/search) and offers `search_knowledge`.
   * The sources' ids stay on the server. Absent from older servers' metadata: none.
   */
  knowledge: z.boolean().optional(),
  /** People the call may be transferred to (transfer_call); empty: the tool is not offered. */
  transferDestinations: z.array(ZRuntimeTransferDestination).default([]),
  /**
   * Outbound calls: what to do when a voicemail box or a phone menu answers (the worker's
   * answering-machine detection). The message's placeholders are filled for a dialled contact.
   * Absent from older servers' metadata: the defaults.
   */
  voicemail: ZVoicemailSetting.default(defaultVoicemailSetting),
})
export type AgentRuntimeConfig = z.infer<typeof ZAgentRuntimeConfig>

export const DISPATCH_METADATA_VERSION = 1

/** The JSON in LiveKit's dispatch metadata (`ctx.job.metadata`). */
export const ZDispatchMetadata = z.object({
  version: z.literal(DISPATCH_METADATA_VERSION),
  callId: z.string(),
  organizationId: z.string(),
  roomName: z.string(),
  direction: z.enum(['web', 'outbound', 'inbound']),
  /** Web calls: the participant identity of the person (the key creator's user id). */
  userId: z.string().nullable(),
  agent: ZAgentRuntimeConfig,
  /** Phone calls: the SIP participant's identity (callee or caller), whom the agent waits for. */
  sipParticipantIdentity: z.string().optional(),
  /** Outbound calls: the contact's fields (placeholders are already filled in the prompt). */
  contact: z.record(z.string(), z.unknown()).optional(),
  batchJobId: z.string().optional(),
  batchContactId: z.string().optional(),
  fromNumber: z.string().optional(),
  /** Inbound calls: who rang (`{{caller_number}}`) and which of the organization's numbers. */
  callerNumber: z.string().optional(),
  calledNumber: z.string().optional(),
})
export type DispatchMetadata = z.infer<typeof ZDispatchMetadata>

/**
 * One model endpoint resolved by the server for one call: which wire protocol (and so which
 * LiveKit plugin) to use, where, with which key, and the provider's own model id. The key is the
 * organization's own key for that provider when it has one, else the platform's.
 */
export const ZResolvedEndpoint = z.object({
  /** The catalogue's provider id (`openai`, `groq`, `deepgram`, … or an extra provider's id). */
  provider: z.string(),
  /** The wire protocol: `openai` covers every OpenAI-compatible endpoint. */
  api: z.enum(['openai', 'deepgram', 'elevenlabs', 'cartesia', 'google']),
  baseUrl: z.string(),
  apiKey: z.string(),
  /** The provider's own model id (e.g. `nova-3` for the catalogue's `deepgram-nova-3`). */
  model: z.string(),
  keySource: z.enum(['organization', 'platform']),
})
export type ResolvedEndpoint = z.infer<typeof ZResolvedEndpoint>

/** The worker's custom functions with their headers opened. */
export const ZWorkerFunction = ZRuntimeFunction.extend({ headers: z.record(z.string(), z.string()) })
export type WorkerFunction = z.infer<typeof ZWorkerFunction>

/** GET /v1/calls/{callId}/setup: everything secret a call needs, resolved for its agent. */
export const ZCallSetup = z.object({
  /** Pipeline agents. */
  llm: ZResolvedEndpoint.nullable(),
  /**
   * Pipeline agents with a `fallbackModel`: the model the worker turns to when the primary fails
   * before its first chunk. Null when the agent names none or this deployment cannot serve it.
   */
  fallbackLlm: ZResolvedEndpoint.nullable(),
  stt: ZResolvedEndpoint.extend({ language: z.string() }).nullable(),
  /** `voice` is the provider's own voice id, mapped from the catalogue's. */
  tts: ZResolvedEndpoint.extend({ voice: z.string() }).nullable(),
  /**
   * Pipeline agents with a `fallbackStt` / `fallbackTts`: what the worker turns to when the
   * agent's own STT or TTS fails (the framework's fallback adapters). Null when the agent names
   * none or this deployment cannot serve it; absent from older servers.
   */
  fallbackStt: ZResolvedEndpoint.extend({ language: z.string() }).nullable().default(null),
  fallbackTts: ZResolvedEndpoint.extend({ voice: z.string() }).nullable().default(null),
  /** Realtime agents. */
  realtime: ZResolvedEndpoint.extend({ voice: z.string().nullable() }).nullable(),
  functions: z.array(ZWorkerFunction),
  /** Built-in web search, when the deployment has a search provider. */
  webSearch: z.object({ url: z.string(), apiKey: z.string().nullable() }).nullable(),
  /**
   * A call that continues a chat conversation: its latest turns before the call, oldest first,
   * so the agent picks up where the typing left off. Empty for a call of its own (and a handoff,
   * whose new agent hears the call so far from the worker).
   */
  history: z.array(
    z.object({
      role: z.enum(['user', 'assistant']),
      content: z.string(),
      channel: z.enum(['text', 'voice']),
    }),
  ),
  /**
   * What the agent remembers of the person from earlier conversations (as chat recalls it): the
   * memory of the conversation the call continues (its user_identifier's), or of the phone
   * caller's or callee's number. Null when the person is not known; absent from older servers.
   */
  memory: z.string().nullable().default(null),
  /**
   * An outbound call of a realtime agent: what answering-machine detection runs on, the
   * speech-to-speech model having no text completion to classify with. `llm` is the agent's
   * `analysisModel` (the catalogue's default text model without one, as post-call analysis picks
   * it); `stt` the catalogue's default STT, which hears the callee on a side stream of the room
   * audio during detection only (null when this deployment cannot serve it: the realtime model's
   * own transcription of the callee is used then). Null for every other call, and when no text
   * model can be served (the call goes on undetected); absent from older servers.
   */
  amd: z
    .object({
      llm: ZResolvedEndpoint,
      stt: ZResolvedEndpoint.extend({ language: z.string() }).nullable(),
    })
    .nullable()
    .default(null),
})
export type CallSetup = z.infer<typeof ZCallSetup>

export const ZCallSetupResponse = z
  .object({ success: z.literal(true), data: ZCallSetup })
  .meta({ id: 'WorkerCallSetup' })

/** POST /v1/calls/{callId}/handoff: the worker hands the call to another voice agent. */
export const ZCallHandoffRequest = z.object({ agentId: z.string().min(1).max(100) }).strict()
export const ZCallHandoffResponse = z
  .object({
    success: z.literal(true),
    data: z.object({ agent: ZAgentRuntimeConfig, setup: ZCallSetup }),
  })
  .meta({ id: 'WorkerCallHandoff' })

/**
 * POST /v1/calls/{callId}/end: the agent ended the call (end_call, inactivity, error), or ended
 * it on what answering-machine detection heard (a message left on a voicemail, hung up on one, a
 * phone menu), or because the person opted out (opt_out).
 */
export const workerEndReasons = [
  'agent_ended',
  'inactivity',
  'agent_error',
  'voicemail_left',
  'voicemail_hung_up',
  'phone_menu',
  'opted_out',
] as const
export type WorkerEndReason = (typeof workerEndReasons)[number]

/** What answering-machine detection decided about who answered an outbound call. */
export const amdVerdicts = ['human', 'voicemail', 'phone_menu', 'unavailable', 'uncertain'] as const
export type AmdVerdict = (typeof amdVerdicts)[number]
export const ZAmdVerdict = z.enum(amdVerdicts)

export const ZCallEndRequest = z
  .object({
    reason: z.enum(workerEndReasons),
    amdVerdict: ZAmdVerdict.optional().meta({
      description: 'What answering-machine detection decided, on an outbound call where it ran',
    }),
  })
  .strict()
export const ZCallEndResponse = z
  .object({ success: z.literal(true), data: z.object({ ended: z.boolean() }) })
  .meta({ id: 'WorkerCallEnded' })

/** opt_out on a call: the server lists the call's other party (no body: the call says who). */
export const ZCallOptOutRequest = z.object({}).strict()
export const ZCallOptOutResponse = z
  .object({
    success: z.literal(true),
    data: z.object({ phoneNumber: z.string(), alreadyListed: z.boolean() }),
  })
  .meta({ id: 'WorkerCallOptedOut' })

/**
 * The SIP callee's progress as LiveKit's `sip.callStatus` participant attribute says it, which only
 * a participant in the room sees (the worker): the statuses the worker reports, in order.
 */
export const sipCallProgress = ['dialing', 'ringing', 'active'] as const
export type SipCallProgress = (typeof sipCallProgress)[number]

/**
 * POST /v1/calls/{callId}/sip-status: the outbound callee's `sip.callStatus` changed. The server
 * records `dialing`, `ringing` or `answered` (for `active`) as the call's event, once each and
 * never one before a later one (or after `ended`).
 */
export const ZCallSipStatusRequest = z.strictObject({
  status: z.enum(sipCallProgress).meta({ description: "The callee's sip.callStatus (LiveKit)" }),
})
export type CallSipStatusRequest = z.infer<typeof ZCallSipStatusRequest>
export const ZCallSipStatusResponse = z
  .object({
    success: z.literal(true),
    data: z.object({
      recorded: z.enum(['dialing', 'ringing', 'answered']).nullable().meta({
        description: 'The event this report wrote; null: nothing new (already there, or the call ended)',
      }),
    }),
  })
  .meta({ id: 'WorkerCallSipStatus' })

/** How a warm transfer the worker ran ended (a cold one's result is the server's own). */
export const warmTransferResults = ['transferred', 'no_answer', 'declined', 'failed'] as const

/**
 * POST /v1/calls/{callId}/transfer: the agent's transfer_call. Without transferId it starts a
 * transfer to the live agent's destination of that name: a cold one the server carries out (SIP
 * REFER for a phone caller, the person dialled into the room for a web caller); a warm one it
 * records as dialing and answers the line the worker dials the person on. With transferId and
 * result the worker reports how its warm transfer ended.
 */
export const ZCallTransferRequest = z
  .object({
    destination: z.string().trim().min(1).max(40).meta({ description: 'A transferDestinations name' }),
    transferId: z.string().min(1).max(100).optional().meta({
      description: 'A warm transfer this call started: report its result (with result)',
    }),
    result: z.enum(warmTransferResults).optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if ((body.transferId === undefined) !== (body.result === undefined))
      ctx.addIssue({
        code: 'custom',
        path: [body.transferId === undefined ? 'transferId' : 'result'],
        message: 'send transferId and result together',
      })
  })
  .meta({ id: 'WorkerCallTransferRequest' })
export type CallTransferRequest = z.infer<typeof ZCallTransferRequest>

/** Where a room of an inbound call begins (the SIP dispatch rule's room prefix). */
export const INBOUND_ROOM_PREFIX = 'call-inbound-'

/**
 * The job metadata of an inbound call's dispatch, set once on the number's SIP dispatch rule:
 * which number rang. The worker asks the server to open the call (POST /v1/calls/inbound) and
 * gets the call's DispatchMetadata back.
 */
export const ZInboundJobMetadata = z.object({
  kind: z.literal('inbound'),
  phoneNumberId: z.string().min(1),
})
export type InboundJobMetadata = z.infer<typeof ZInboundJobMetadata>

/** POST /v1/calls/inbound: the worker took an inbound job; the caller is in the room. */
export const ZInboundCallOpenRequest = z
  .object({
    phoneNumberId: z.string().min(1).max(100),
    roomName: z.string().min(1).max(200),
    callerNumber: z.string().min(1).max(64).meta({ description: 'The SIP participant’s sip.phoneNumber' }),
    calledNumber: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .meta({ description: 'The SIP participant’s sip.trunkPhoneNumber' }),
    sipParticipantIdentity: z.string().min(1).max(200),
    agentParticipantSid: z.string().min(1).max(100).optional().meta({
      description: 'The worker’s own participant in the room: the billing clock starts with both present',
    }),
  })
  .strict()
  .meta({ id: 'WorkerInboundCallOpenRequest' })
export type InboundCallOpenRequest = z.infer<typeof ZInboundCallOpenRequest>

export const inboundRefusals = ['insufficient_credits', 'agent_unavailable', 'not_answering'] as const

export const ZInboundCallOpenResponse = z
  .object({
    success: z.literal(true),
    data: z.discriminatedUnion('accepted', [
      z.object({
        accepted: z.literal(true),
        callId: z.string(),
        /** The call's dispatch metadata, as a dispatched call's job carries it. */
        dispatch: ZDispatchMetadata,
      }),
      z.object({
        accepted: z.literal(false),
        callId: z.string().nullable(),
        reason: z.enum(inboundRefusals),
        /** What the agent says to the caller before it hangs up. */
        message: z.string(),
        /** The voice it says it with (the agent's TTS, else the catalogue's default); null: none. */
        speech: ZResolvedEndpoint.extend({ voice: z.string() }).nullable(),
      }),
    ]),
  })
  .meta({ id: 'WorkerInboundCallOpen' })
export type InboundCallOpen = z.infer<typeof ZInboundCallOpenResponse>['data']
