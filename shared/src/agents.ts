import { z } from 'zod'
import { ZIsoDateTime, ZPagination } from './common.ts'

export const architectures = ['pipeline', 'realtime', 'text'] as const
export const ZAgentArchitecture = z.enum(architectures, {
  message: `must be one of ${architectures.join(', ')}`,
})
export type AgentArchitecture = z.infer<typeof ZAgentArchitecture>

export const modes = ['public', 'private', 'commercial'] as const
export const ZAgentMode = z.enum(modes, { message: 'Invalid mode. Must be public, private or commercial' })
export type AgentMode = z.infer<typeof ZAgentMode>

export const ZGreetingType = z.enum(['agentFirst', 'userFirst'], {
  message: 'must be agentFirst or userFirst',
})
export const ZRealtimeProvider = z.enum(['openai', 'gemini'], { message: 'must be openai or gemini' })

/** The languages agents speak, by code, with the names the studio shows. */
export const languageNames = { en: 'English', ur: 'Urdu', sd: 'Sindhi' } as const
export type LanguageCode = keyof typeof languageNames
export const LANGUAGE_ERROR = 'Invalid language. Valid languages are: en, ur, sd'
const languageAliases: Record<string, LanguageCode> = {
  en: 'en',
  english: 'en',
  ur: 'ur',
  urdu: 'ur',
  sd: 'sd',
  sindhi: 'sd',
}

/** Accepts a code or a name in any case (en/English, ur/Urdu, sd/Sindhi) and yields the code. */
export const ZLanguage = z
  .string({ message: LANGUAGE_ERROR })
  .trim()
  .toLowerCase()
  .refine((value) => value in languageAliases, { message: LANGUAGE_ERROR })
  .transform((value) => languageAliases[value] as LanguageCode)
  .meta({
    enum: Object.keys(languageNames),
    description: 'A language code; the names (English, Urdu, Sindhi) in any case are read as their codes',
  })

export const ZLanguageObject = z
  .object({ id: z.string(), language: z.string() })
  .meta({ id: 'AgentLanguage' })

export const ZVoiceOption = z
  .object({ voiceId: z.string(), voiceName: z.string(), provider: z.string() })
  .meta({ id: 'VoiceOption' })
export type VoiceOption = z.infer<typeof ZVoiceOption>

const required = (field: string) => `${field} is required`
const fixedArchitecture =
  'Fixed at creation: accepted only when it is the agent’s own (a fetched agent sent back as it came); another value is refused (400)'

const name = z
  .string({ message: required('name') })
  .trim()
  .min(1, required('name'))
  .min(2, 'name must be 2-50 characters')
  .max(50, 'name must be 2-50 characters')
const description = z
  .string()
  .trim()
  .min(1, required('description'))
  .max(200, 'description must be at most 200 characters')
  .nullable()
const prompt = (field: string) =>
  z
    .string({ message: required(field) })
    .trim()
    .min(1, required(field))
    .max(5000, `${field} must be at most 5000 characters`)
const lastMessage = z.string().max(100, 'lastMessage must be at most 100 characters').nullable()
const greetingMessage = z.string().max(1000, 'greetingMessage must be at most 1000 characters').nullable()
const inactivityTimeout = z
  .number({ message: 'inactivityTimeout must be a whole number of seconds' })
  .int('inactivityTimeout must be a whole number of seconds')
  .min(10, 'inactivityTimeout must be between 10 and 60 seconds')
  .max(60, 'inactivityTimeout must be between 10 and 60 seconds')
/** The temperature an agent created without one gets. */
export const DEFAULT_TEMPERATURE = 0.7
/** v1 describes the sampling range as 0-2; the studio form accepts 0.1-1.0. */
const v1Temperature = z
  .number()
  .min(0, 'temperature must be between 0 and 2')
  .max(2, 'temperature must be between 0 and 2')
const studioTemperature = z
  .number()
  .min(0.1, 'temperature must be between 0.1 and 1.0')
  .max(1, 'temperature must be between 0.1 and 1.0')
const catalogueId = z.string().trim().min(1).max(100)
const ids = z.array(z.string().min(1).max(100)).max(50)
const knowledgeSourceIds = ids.max(20).meta({
  description:
    'Knowledge sources of the organization each reply retrieves passages from (GET /v1/knowledge/sources)',
})
/** After a session ends, the agent's model writes a summary, sentiment and outcome onto it. */
const postCallAnalysis = z.boolean().meta({
  description: 'After a chat ends, store an LLM summary, sentiment and outcome on the conversation',
})
const webhookUrl = z.url({ message: 'webhookUrl must be an https URL' }).max(2000).nullable()

/** The events an agent's webhook endpoint may receive. */
export const webhookEventNames = [
  'chat.ended',
  'call.ended',
  'conversation.analyzed',
  'call.analyzed',
  'batch.completed',
  'batch.failed',
  'call.transferred',
  'contact.opted_out',
] as const
export const ZWebhookEventName = z.enum(webhookEventNames)
export type WebhookEventName = z.infer<typeof ZWebhookEventName>
const webhookEvents = z
  .array(ZWebhookEventName)
  .max(webhookEventNames.length)
  .refine((events) => new Set(events).size === events.length, 'webhookEvents must not repeat an event')
  .meta({ description: 'The events the webhook endpoint receives; every event when not given' })

/**
 * The agent's own analysis fields: a JSON Schema (an object schema whose properties the model
 * fills from the transcript after a chat or a call). Checked to be a valid schema when saved.
 */
const analysisSchema = z.record(z.string(), z.unknown()).nullable().meta({
  description:
    "JSON Schema (type object) of structured fields post-call analysis fills, e.g. {type:'object', properties:{orderNumber:{type:'string'}}}",
})

/** A transfer's phone number: E.164 as phone-numbers.ts writes it (a leading +, at most 15 digits). */
const TRANSFER_E164_PATTERN = /^\+[1-9]\d{1,14}$/
/** A SIP URI a transfer may reach: sip: or sips:, a user part and a host, no spaces or angle brackets. */
export const SIP_URI_PATTERN = /^sips?:[^\s<>@]+@[A-Za-z0-9.-]+(:\d{1,5})?(;[^\s<>]*)?$/i

/** Where a call may be handed to a person (the transfer_call built-in, voice agents). */
export const ZTransferDestination = z
  .object({
    name: z
      .string({ message: 'transferDestinations: name is required' })
      .trim()
      .min(1, 'transferDestinations: name is required')
      .max(40, 'transferDestinations: name must be at most 40 characters'),
    destination: z
      .string()
      .trim()
      .max(256)
      .refine((value) => TRANSFER_E164_PATTERN.test(value) || SIP_URI_PATTERN.test(value), {
        message: 'transferDestinations: destination must be an E.164 number (+15551234567) or a sip: URI',
      })
      .meta({ description: 'An E.164 number (+15551234567) or a SIP URI (sip:desk@pbx.example.com)' }),
    whenToUse: z
      .string()
      .trim()
      .min(1, 'transferDestinations: whenToUse is required')
      .max(500, 'transferDestinations: whenToUse must be at most 500 characters')
      .meta({ description: 'When the agent should transfer here; the model reads it' }),
    mode: z.enum(['cold', 'warm'], { message: 'transferDestinations: mode must be cold or warm' }).meta({
      description:
        'cold: the caller is put through at once (SIP REFER for a phone caller); warm: the agent briefs the person first, then joins them',
    }),
  })
  .strict()
  .meta({ id: 'TransferDestination' })
export type TransferDestination = z.infer<typeof ZTransferDestination>

const transferDestinations = z
  .array(ZTransferDestination)
  .max(10, 'transferDestinations must have at most 10 items')
  .refine(
    (list) => new Set(list.map((item) => item.name.toLowerCase())).size === list.length,
    'transferDestinations: names must be unique',
  )
  .meta({
    description:
      'People a voice agent may transfer the call to with the transfer_call built-in (up to 10); ignored for text agents',
  })

/** What a voice agent does when an outbound call reaches a voicemail box or a phone menu. */
export const voicemailActions = ['hang_up', 'leave_message'] as const
export const phoneMenuActions = ['navigate', 'hang_up'] as const
export const VOICEMAIL_MESSAGE_MAX = 1000
const VOICEMAIL_EXAMPLE = 'Hi {{first_name}}, this is Ada from Acme about your order. Please call us back.'

/** The stored and returned form: every field present. */
export const ZVoicemailSetting = z
  .object({
    action: z.enum(voicemailActions).meta({
      description:
        'On an outbound call answered by a voicemail box: hang_up at once, or leave_message (after the greeting ends), then hang up',
    }),
    message: z.string().nullable().meta({
      description: 'The message left on a voicemail box; may use {{field}} placeholders like the prompt',
      example: VOICEMAIL_EXAMPLE,
    }),
    onPhoneMenu: z.enum(phoneMenuActions).meta({
      description:
        'On an outbound call answered by a phone menu: navigate (the agent may press keys with send_dtmf) or hang_up',
    }),
  })
  .meta({ id: 'VoicemailSetting' })
export type VoicemailSetting = z.infer<typeof ZVoicemailSetting>

export const defaultVoicemailSetting: VoicemailSetting = {
  action: 'hang_up',
  message: null,
  onPhoneMenu: 'navigate',
}

/** What create and update take: action required, a message required to leave one. */
const voicemail = z
  .object({
    action: z.enum(voicemailActions, { message: 'voicemail: action must be hang_up or leave_message' }),
    message: z
      .string({ message: 'voicemail: message must be a string' })
      .trim()
      .max(VOICEMAIL_MESSAGE_MAX, `voicemail: message must be at most ${VOICEMAIL_MESSAGE_MAX} characters`)
      .nullable()
      .optional()
      .transform((value) => (value ? value : null))
      .meta({
        description: 'Required for leave_message; may use {{field}} placeholders like the prompt',
        example: VOICEMAIL_EXAMPLE,
      }),
    onPhoneMenu: z
      .enum(phoneMenuActions, { message: 'voicemail: onPhoneMenu must be navigate or hang_up' })
      .default('navigate'),
  })
  .strict()
  .refine((value) => value.action !== 'leave_message' || value.message !== null, {
    message: 'voicemail: message is required when action is leave_message',
    path: ['message'],
  })
  .meta({
    id: 'VoicemailSettingInput',
    description:
      'Outbound calls of a voice agent (ignored for text agents): what to do on a voicemail box or a phone menu. Default {action: hang_up, onPhoneMenu: navigate}',
  })

const fallbackModel = catalogueId.nullable().meta({
  description:
    "A catalogue model tried once when the model's provider fails before the reply's first chunk (text and pipeline). Realtime agents: with fallbackStt and fallbackTts (all three or none), the pipeline a call continues on when the realtime model fails",
})

const analysisModel = catalogueId.nullable().meta({
  description:
    "Realtime agents: the catalogue text model post-call analysis runs on (null: the catalogue's default model). Pipeline and text agents are analysed by their own model",
})
const fallbackStt = catalogueId.nullable().meta({
  description:
    "Pipeline agents: a catalogue STT the worker turns to when the agent's own STT fails. Realtime agents: the STT of their pipeline fallback (see fallbackModel)",
})
const fallbackTts = catalogueId.nullable().meta({
  description:
    "Pipeline agents: a catalogue TTS the worker turns to when the agent's own TTS fails. Realtime agents: the TTS of their pipeline fallback (see fallbackModel)",
})

/** Fields both update forms (v1 PUT and studio PUT) share, in the studio vocabulary. */
const updateFields = {
  name,
  description,
  sysMsg: prompt('sysMsg'),
  model: catalogueId.nullable(),
  stt: catalogueId.nullable(),
  tts: catalogueId.nullable(),
  voiceId: catalogueId.nullable(),
  realtimeProvider: ZRealtimeProvider.nullable(),
  greetingType: ZGreetingType,
  greetingMessage,
  lastMessage,
  inactivityTimeout,
  mode: ZAgentMode,
  languages: z.array(ZLanguage).min(1, 'languages must have at least 1 item').max(3),
  functionCallingEnabled: z.boolean(),
  enabledFunctions: ids,
  enabledCustomFunctions: ids,
  webhookUrl,
  handoffAgentIds: ids.max(10),
  knowledgeSourceIds,
  postCallAnalysis,
  fallbackModel,
  analysisModel,
  fallbackStt,
  fallbackTts,
  webhookEvents,
  analysisSchema,
  transferDestinations,
  voicemail,
  /** Architecture is fixed after creation: only the agent's own is accepted (a fetched agent sent back). */
  agentArchitecture: ZAgentArchitecture.meta({ description: fixedArchitecture }),
}

export const ZStudioUpdateAgent = z
  .object({ ...updateFields, temperature: studioTemperature })
  .partial()
  .meta({ id: 'StudioUpdateAgentRequest' })
export type StudioUpdateAgent = z.infer<typeof ZStudioUpdateAgent>

export const ZUpdateAgentV1 = z
  .object({ ...updateFields, temperature: v1Temperature, active: z.boolean() })
  .partial()
  .meta({ id: 'UpdateAgentRequest' })
export type UpdateAgentV1 = z.infer<typeof ZUpdateAgentV1>

/** The v1 create vocabulary: systemPrompt, a single language, tts. */
const v1Fields = {
  name,
  agentArchitecture: ZAgentArchitecture,
  model: catalogueId.nullable(),
  stt: catalogueId.nullable(),
  tts: catalogueId.nullable(),
  voiceId: catalogueId.nullable(),
  systemPrompt: prompt('systemPrompt'),
  language: ZLanguage,
  mode: ZAgentMode,
  temperature: v1Temperature,
  realtimeProvider: ZRealtimeProvider.nullable(),
  description,
  greetingType: ZGreetingType,
  greetingMessage,
  lastMessage,
  inactivityTimeout,
  functionCallingEnabled: z.boolean(),
  enabledFunctions: ids,
  webhookUrl,
  handoffAgentIds: ids.max(10),
  knowledgeSourceIds,
  postCallAnalysis,
  fallbackModel,
  analysisModel,
  fallbackStt,
  fallbackTts,
  webhookEvents,
  analysisSchema,
  transferDestinations,
  voicemail,
}

/** A text agent created without a model gets the catalogue's default (`GET /v1/catalogue`). */
export const requiredByArchitecture: Record<AgentArchitecture, (keyof typeof v1Fields)[]> = {
  pipeline: ['model', 'stt', 'tts'],
  realtime: ['realtimeProvider'],
  text: [],
}

export const ZCreateAgentV1 = z
  .object({
    ...v1Fields,
    mode: ZAgentMode.default('private'),
    language: ZLanguage.default('en'),
    temperature: v1Temperature.default(DEFAULT_TEMPERATURE),
    greetingType: ZGreetingType.default('userFirst'),
    inactivityTimeout: inactivityTimeout.default(30),
  })
  .partial({
    model: true,
    stt: true,
    tts: true,
    voiceId: true,
    realtimeProvider: true,
    description: true,
    greetingMessage: true,
    lastMessage: true,
    functionCallingEnabled: true,
    enabledFunctions: true,
    webhookUrl: true,
    handoffAgentIds: true,
    knowledgeSourceIds: true,
    postCallAnalysis: true,
    fallbackModel: true,
    analysisModel: true,
    fallbackStt: true,
    fallbackTts: true,
    webhookEvents: true,
    analysisSchema: true,
    transferDestinations: true,
    voicemail: true,
  })
  .superRefine((agent, ctx) => {
    for (const field of requiredByArchitecture[agent.agentArchitecture]) {
      if (agent[field] === undefined || agent[field] === null) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `${field} is required for ${agent.agentArchitecture} agents`,
        })
      }
    }
  })
  .meta({ id: 'CreateAgentRequest' })
export type CreateAgentV1 = z.infer<typeof ZCreateAgentV1>

const readOnly = (description: string) => z.string().meta({ description: `Read-only: ${description}` })

/**
 * Any subset of the fields GET returns or PUT takes, so a fetched agent can be sent back as it
 * came: the create vocabulary (systemPrompt, language) and the studio one (sysMsg, languages)
 * alike, but not both names of one field at once. id, createdBy, createdAt and updatedAt are read-only.
 */
export const ZPatchAgentV1 = z
  .object({
    ...v1Fields,
    agentArchitecture: ZAgentArchitecture.meta({ description: fixedArchitecture }),
    active: z.boolean(),
    enabledCustomFunctions: ids,
    sysMsg: prompt('sysMsg'),
    languages: updateFields.languages,
    id: readOnly('accepted when it is the path id'),
    createdBy: readOnly('ignored'),
    createdAt: readOnly('ignored'),
    updatedAt: readOnly('ignored'),
  })
  .partial()
  .superRefine((patch, ctx) => {
    for (const [one, other] of [
      ['systemPrompt', 'sysMsg'],
      ['language', 'languages'],
    ] as const) {
      if (patch[one] !== undefined && patch[other] !== undefined) {
        ctx.addIssue({ code: 'custom', path: [other], message: `send ${one} or ${other}, not both` })
      }
    }
  })
  .meta({ id: 'PatchAgentRequest' })
export type PatchAgentV1 = z.infer<typeof ZPatchAgentV1>

export const ZAgentIdParams = z.object({ agentId: z.string().min(1).max(100) })

export const ZListAgentsQuery = z.object({
  mode: ZAgentMode.optional(),
  page: z.coerce.number().int('page must be a whole number').min(1, 'page must be at least 1').default(1),
  limit: z.coerce
    .number()
    .int('limit must be a whole number')
    .min(1, 'limit must be between 1 and 100')
    .max(100, 'limit must be between 1 and 100')
    .default(20),
})
export type ListAgentsQuery = z.infer<typeof ZListAgentsQuery>

/** An agent in the studio vocabulary: every field of the spec's Agent table. */
export const ZAgent = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    agentArchitecture: ZAgentArchitecture,
    mode: ZAgentMode,
    model: z.string().nullable(),
    stt: z.string().nullable(),
    tts: z.string().nullable(),
    voiceId: z.string().nullable(),
    realtimeProvider: ZRealtimeProvider.nullable(),
    sysMsg: z.string().nullable(),
    greetingType: ZGreetingType,
    greetingMessage: z.string().nullable(),
    lastMessage: z.string().nullable(),
    temperature: z.number(),
    inactivityTimeout: z.number().int(),
    functionCallingEnabled: z.boolean(),
    enabledFunctions: z.array(z.string()),
    enabledCustomFunctions: z.array(z.string()),
    languages: z.array(ZLanguageObject),
    VoiceOption: ZVoiceOption.nullable(),
    webhookUrl: z.string().nullable(),
    handoffAgentIds: z.array(z.string()),
    knowledgeSourceIds: z.array(z.string()),
    postCallAnalysis: z.boolean(),
    fallbackModel: z.string().nullable(),
    analysisModel: z.string().nullable(),
    fallbackStt: z.string().nullable(),
    fallbackTts: z.string().nullable(),
    webhookEvents: z.array(ZWebhookEventName),
    analysisSchema: z.record(z.string(), z.unknown()).nullable(),
    transferDestinations: z.array(ZTransferDestination),
    voicemail: ZVoicemailSetting,
    userId: z.string(),
    organizationId: z.string(),
    active: z.boolean(),
    createdAt: ZIsoDateTime,
    updatedAt: ZIsoDateTime,
  })
  .meta({ id: 'Agent' })
export type Agent = z.infer<typeof ZAgent>

/** The v1 get form: systemPrompt, a single language, tts. */
export const ZAgentV1 = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    agentArchitecture: ZAgentArchitecture,
    model: z.string().nullable(),
    stt: z.string().nullable(),
    tts: z.string().nullable(),
    voiceId: z.string().nullable(),
    realtimeProvider: ZRealtimeProvider.nullable(),
    systemPrompt: z.string().nullable(),
    language: z.string(),
    mode: ZAgentMode,
    active: z.boolean(),
    temperature: z.number(),
    greetingType: ZGreetingType,
    greetingMessage: z.string().nullable(),
    lastMessage: z.string().nullable(),
    inactivityTimeout: z.number().int(),
    functionCallingEnabled: z.boolean(),
    enabledFunctions: z.array(z.string()),
    enabledCustomFunctions: z.array(z.string()),
    webhookUrl: z.string().nullable(),
    handoffAgentIds: z.array(z.string()),
    knowledgeSourceIds: z.array(z.string()),
    postCallAnalysis: z.boolean(),
    fallbackModel: z.string().nullable(),
    analysisModel: z.string().nullable(),
    fallbackStt: z.string().nullable(),
    fallbackTts: z.string().nullable(),
    webhookEvents: z.array(ZWebhookEventName),
    analysisSchema: z.record(z.string(), z.unknown()).nullable(),
    transferDestinations: z.array(ZTransferDestination),
    voicemail: ZVoicemailSetting,
    createdBy: z.string().meta({
      description: 'The user who created the agent: the creator the access rules name',
    }),
    createdAt: ZIsoDateTime,
    updatedAt: ZIsoDateTime,
  })
  .meta({ id: 'AgentV1' })
export type AgentV1 = z.infer<typeof ZAgentV1>

export const ZAgentListItem = z
  .object({
    id: z.string(),
    name: z.string(),
    mode: ZAgentMode,
    agentArchitecture: ZAgentArchitecture,
    active: z.boolean(),
    createdAt: ZIsoDateTime,
  })
  .meta({ id: 'AgentListItem' })
export type AgentListItem = z.infer<typeof ZAgentListItem>

export const ZAgentList = z
  .object({
    success: z.literal(true),
    data: z.array(ZAgentListItem),
    pagination: ZPagination,
  })
  .meta({ id: 'AgentList' })
export type AgentList = z.infer<typeof ZAgentList>

export const ZAgentCreated = z
  .object({
    success: z.literal(true),
    data: z.object({
      id: z.string(),
      name: z.string(),
      agentArchitecture: ZAgentArchitecture,
      active: z.boolean(),
      createdAt: ZIsoDateTime,
      webhookSecret: z
        .string()
        .meta({ description: 'Signs webhooks to this agent; shown only here and on rotation' }),
    }),
  })
  .meta({ id: 'AgentCreated' })
export type AgentCreated = z.infer<typeof ZAgentCreated>

export const ZAgentV1Response = z
  .object({ success: z.literal(true), data: ZAgentV1 })
  .meta({ id: 'AgentV1Response' })
export const ZAgentUpdated = z
  .object({ success: z.literal(true), data: z.object({ agent: ZAgent }) })
  .meta({ id: 'AgentUpdated' })
export const ZAgentDeleted = z
  .object({ success: z.literal(true), data: z.object({ message: z.string() }) })
  .meta({ id: 'AgentDeleted' })
export const ZWebhookSecret = z
  .object({ success: z.literal(true), data: z.object({ webhookSecret: z.string() }) })
  .meta({ id: 'WebhookSecret' })

export const ZStudioAgentUpdated = z
  .object({
    success: z.literal(true),
    agent: ZAgent,
    missingKeys: z.array(z.string()).optional(),
    usedDefaults: z.boolean().optional(),
    finalModel: z.string().nullable().optional(),
    finalStt: z.string().nullable().optional(),
    redirectUrl: z.string().optional(),
  })
  .meta({
    id: 'StudioAgentUpdated',
    description: 'The alternate fields appear when the organization lacks a provider key the choice needs',
  })
export type StudioAgentUpdated = z.infer<typeof ZStudioAgentUpdated>

export const ZWebhookDelivery = z
  .object({
    id: z.string(),
    event: z.string(),
    url: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.number().int(),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    lastResponse: z
      .string()
      .nullable()
      .meta({ description: "The start (1,000 characters) of the endpoint's last answer" }),
    payload: z.record(z.string(), z.unknown()),
    createdAt: ZIsoDateTime,
    lastAttemptAt: ZIsoDateTime.nullable(),
    nextAttemptAt: ZIsoDateTime.nullable(),
  })
  .meta({ id: 'WebhookDelivery' })
export type WebhookDelivery = z.infer<typeof ZWebhookDelivery>

export const ZWebhookDeliveryList = z
  .object({
    success: z.literal(true),
    data: z.array(ZWebhookDelivery),
    pagination: ZPagination,
  })
  .meta({ id: 'WebhookDeliveryList' })
export type WebhookDeliveryList = z.infer<typeof ZWebhookDeliveryList>

export const ZWebhookDeliveryAnswer = z
  .object({ success: z.literal(true), data: ZWebhookDelivery })
  .meta({ id: 'WebhookDeliveryAnswer' })
export type WebhookDeliveryAnswer = z.infer<typeof ZWebhookDeliveryAnswer>

export const ZWebhookDeliveryParams = z.object({
  agentId: z.string().min(1).max(100),
  deliveryId: z.string().min(1).max(100),
})

export const ZPageQuery = ZListAgentsQuery.omit({ mode: true })
