import { architectures, batchLimits, type ErrorCode, requiredByArchitecture } from '@parley/shared'

/**
 * The rules the server applies that a route's zod schema alone does not carry into the document:
 * top-level strictness (route-table.ts refuses unknown fields at the top of every body), the
 * per-architecture requirements of agent creation (a superRefine in shared/agents.ts), limits the
 * services check so that they answer a named code, the error codes each operation can answer,
 * the rate-limit headers, the credentials, the streams' events and the served content types.
 * Every value here is imported from where the server takes it, so nothing is written twice.
 */

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema and OpenAPI objects are open-ended here.
type Json = Record<string, any>

/** Each tag of the document, with what it covers. */
export const tags = [
  { name: 'System', description: 'Liveness, readiness and this document.' },
  {
    name: 'Accounts',
    description:
      'Studio accounts: sign-up, log-in, organizations, members, invitations, identity secret and the credit ledger (`/api/*`, studio session).',
  },
  { name: 'Operator', description: 'The operator API (`/admin/*`, ADMIN_TOKEN): tiers, limits, credits.' },
  {
    name: 'Agents',
    description:
      'Agents (text, pipeline voice, realtime voice), the model catalogue and each agent’s webhook secret.',
  },
  { name: 'Organizations', description: 'Organization settings kept by the studio: provider keys.' },
  {
    name: 'Custom functions',
    description: 'HTTP functions an agent may call during a chat or a call, and a dry run of one.',
  },
  {
    name: 'Webhooks',
    description:
      'Deliveries of the signed events an agent’s webhook endpoint receives (see `webhooks` for their bodies).',
  },
  {
    name: 'Export',
    description: 'Exports of conversations, calls, batch contacts or the ledger (NDJSON or CSV).',
  },
  { name: 'API keys', description: 'Secret keys (server to server) and widget keys (browsers, by Origin).' },
  {
    name: 'Text chat',
    description:
      'Chat sessions: a session token per conversation, replies streamed as Server-Sent Events (`ChatStreamEvent`).',
  },
  { name: 'Voice', description: 'Voice sessions in LiveKit rooms, and LiveKit’s webhooks.' },
  {
    name: 'Calls',
    description: 'Voice sessions and outbound calls, their transcripts; the voice worker’s calls.',
  },
  { name: 'Conversations', description: 'Stored conversations, analytics and the log of privacy deletions.' },
  { name: 'Phone numbers', description: 'Phone numbers with their SIP trunk and outbound agent.' },
  {
    name: 'Do not call',
    description:
      'The organization’s do-not-call list: numbers no campaign, call or opt-out-aware agent dials.',
  },
  {
    name: 'Batch calling',
    description:
      'Outbound calling campaigns from a CSV file or JSON contacts: preview, create, control, progress (`BatchStreamEvent`).',
  },
  { name: 'Webhook events', description: 'Events Parley sends to an agent’s webhook endpoint, signed.' },
]

/** The status each error code is answered with (AppError and the services that throw it). */
export const statusOfCode: Record<ErrorCode, number | number[]> = {
  validation_error: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  too_many_streams: 429,
  internal_error: 500,
  service_unavailable: 503,
  https_required: 403,
  invalid_encoding: 400,
  client_closed_request: 499,
  origin_not_allowed: 403,
  key_revoked: 409,
  invalid_credentials: 401,
  email_taken: 400,
  already_member: 409,
  invitation_expired: 410,
  insufficient_credits: 402,
  missing_provider_key: 400,
  not_text_agent: 400,
  message_too_long: 400,
  invalid_api_key: 401,
  invalid_token: 401,
  conversation_mismatch: 403,
  session_not_found: 404,
  idempotency_key_reused: 409,
  invalid_user_hash: 403,
  invalid_phone_number: 400,
  phone_number_taken: 409,
  invalid_outbound_agent: 400,
  invalid_inbound_agent: 400,
  inbound_number_taken: 409,
  invalid_csv: 400,
  missing_phone_column: 400,
  no_valid_contacts: 400,
  too_many_contacts: 400,
  invalid_timezone: 400,
  past_scheduled_time: 400,
  invalid_phone_format: 400,
  no_outbound_agent: 400,
  csv_processing_failure: 500,
  csv_too_many_columns: 400,
  csv_header_too_large: 400,
  csv_row_too_large: 400,
  csv_field_too_large: 400,
  invalid_job_state: 409,
  agent_inactive: 403,
  not_voice_agent: 400,
  media_server_error: 500,
  voice_off: 500,
  invalid_signature: 401,
  invalid_worker_token: 401,
  call_ended: 409,
  claim_lost: 409,
  invalid_handoff_target: 400,
  invalid_transfer_destination: 400,
  no_transfer_line: 409,
  // 400 when an agent is saved with it, 409 when a call or reply would start with it
  provider_not_configured: [400, 409],
  export_too_large: 413,
  export_not_ready: 409,
  knowledge_quota_exceeded: 403,
  unsupported_file_type: 415,
  knowledge_source_not_ready: 409,
  tests_failed: 409,
  do_not_call: 409,
}

/** Codes any operation answering that status can give. */
const genericCodes: ErrorCode[] = [
  'validation_error',
  'invalid_encoding',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'internal_error',
  'service_unavailable',
]

/** The codes each area's services throw (by tag); an operation lists those of its statuses. */
const codesByTag: Record<string, ErrorCode[]> = {
  Accounts: ['invalid_credentials', 'email_taken', 'already_member', 'invitation_expired'],
  Operator: ['insufficient_credits'],
  Agents: ['missing_provider_key', 'provider_not_configured', 'invalid_api_key', 'key_revoked'],
  Organizations: [],
  'Custom functions': ['invalid_api_key'],
  Webhooks: ['invalid_api_key'],
  Export: ['export_too_large', 'export_not_ready'],
  Knowledge: [
    'knowledge_quota_exceeded',
    'unsupported_file_type',
    'knowledge_source_not_ready',
    'invalid_api_key',
  ],
  'API keys': ['key_revoked'],
  'Agent versions': ['tests_failed'],
  'Agent tests': ['insufficient_credits', 'claim_lost', 'invalid_handoff_target'],
  'Text chat': [
    'not_text_agent',
    'message_too_long',
    'invalid_api_key',
    'invalid_token',
    'conversation_mismatch',
    'session_not_found',
    'idempotency_key_reused',
    'invalid_user_hash',
    'origin_not_allowed',
    'agent_inactive',
    'insufficient_credits',
    'too_many_streams',
    'missing_provider_key',
    'provider_not_configured',
  ],
  Voice: [
    'not_voice_agent',
    'media_server_error',
    'voice_off',
    'invalid_signature',
    'origin_not_allowed',
    'agent_inactive',
    'invalid_api_key',
    'insufficient_credits',
    'invalid_user_hash',
  ],
  Calls: [
    'call_ended',
    'invalid_handoff_target',
    'provider_not_configured',
    'missing_provider_key',
    'invalid_transfer_destination',
    'no_transfer_line',
    'do_not_call',
  ],
  Conversations: ['invalid_api_key'],
  'Phone numbers': [
    'invalid_phone_number',
    'phone_number_taken',
    'invalid_outbound_agent',
    'invalid_inbound_agent',
    'inbound_number_taken',
    'agent_inactive',
  ],
  'Batch calling': [
    'invalid_api_key',
    'invalid_csv',
    'missing_phone_column',
    'no_valid_contacts',
    'too_many_contacts',
    'invalid_timezone',
    'past_scheduled_time',
    'invalid_phone_format',
    'no_outbound_agent',
    'csv_processing_failure',
    'csv_too_many_columns',
    'csv_header_too_large',
    'csv_row_too_large',
    'csv_field_too_large',
    'invalid_job_state',
    'agent_inactive',
    'insufficient_credits',
    'too_many_streams',
  ],
  'Do not call': [
    'invalid_api_key',
    'invalid_phone_number',
    'invalid_csv',
    'missing_phone_column',
    'csv_processing_failure',
    'csv_too_many_columns',
    'csv_header_too_large',
    'csv_row_too_large',
    'csv_field_too_large',
  ],
  System: [],
}

const errorDescriptions: Record<number, string> = {
  400: 'Invalid input (nothing changed)',
  401: 'Missing or invalid credentials',
  402: 'Insufficient credits',
  403: 'Not allowed',
  404: 'Not found (another organization’s ids answer this too)',
  409: 'Conflict with the resource’s state',
  410: 'Gone',
  413: 'Body too large',
  415: 'Unsupported body encoding or media type',
  429: 'Rate limited; Retry-After says when to try again',
  500: 'Internal error',
  503: 'A dependency is unavailable',
}

/**
 * Statuses routes answer beyond what their definitions list: 413 on every JSON body (the body
 * limit), 403 to a widget key on a secret-key route, 429 when session creation is limited.
 */
const extraStatuses: Record<string, number[]> = {
  getV1Organization: [403],
  getV1Catalogue: [403],
  getV1Agents: [403],
  getV1AgentsByAgentId: [403],
  postLivekitWebhook: [413],
}

/** Hand-written notes some operations need beyond their summary. */
const notes: Record<string, string> = {
  patchV1AgentsByAgentId:
    'Any subset of the fields GET returns. `agentArchitecture` is fixed at creation: it is accepted only when it is the agent’s own (a fetched agent sent back as it came); another value answers 400 validation_error.',
  putV1AgentsByAgentId:
    '`agentArchitecture` is fixed at creation: only the agent’s own is accepted; another value answers 400.',
  putApiAgentsByAgentId:
    '`agentArchitecture` is fixed at creation: only the agent’s own is accepted; another value answers 400.',
  postV1Agents:
    'The body is one of three shapes by `agentArchitecture`: `pipeline` needs model, stt and tts; `realtime` needs realtimeProvider; `text` needs nothing more (a missing model takes the catalogue’s default).',
  postV1ChatVoiceSessions:
    'Departure from the contract (which names secret keys only): a widget key from an Origin on its allowed domains is taken too, so the widget’s microphone button works without a server of your own (DESIGN.md §4); the agent must then be active.',
  postV1ChatSessionsByConversationIdMessages:
    'The reply streams as Server-Sent Events (`ChatStreamEvent`: stream_start, chunk, tool_call, tool_result, handoff, stream_end, error), each with an `id`. Send the same Idempotency-Key and message again with `Last-Event-ID` to resume a reply after a dropped connection.',
  getBatchByBatchJobIdEvents:
    'Server-Sent Events (`BatchStreamEvent`): `progress` at connect and after every contact change, then `end` once the job is completed, failed or cancelled.',
  getApiExportByIdDownload:
    'The file as served: `application/x-ndjson` (one JSON record a line) or `text/csv` (a header row), by the export’s format.',
  postLivekitWebhook:
    'LiveKit’s own webhook (application/webhook+json), signed in `Authorization` with the LiveKit API secret; for LiveKit, not for API clients.',
  postBatchCreate:
    'JSON (`contacts`, at most 10,000) or multipart/form-data with a CSV `file` (a `phone` column and any others, used as {{placeholders}}).',
}

const credentialNames: Record<string, string> = {
  secretKeyBearer: 'a secret API key in Authorization: Bearer',
  secretKeyHeader: 'a secret API key in X-API-Key',
  widgetKey: 'a widget key in X-API-Key from an Origin on its allowed domains',
  studioSession: 'a studio session token in Authorization: Bearer',
  studioTokenHeader: 'a studio session token in X-Studio-Token',
  adminToken: 'the operator token',
  workerToken: 'the voice worker’s token',
  chatSessionToken: 'the session_token of this conversation',
}

const rateLimitHeaders = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/XRateLimitLimit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/XRateLimitRemaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/XRateLimitReset' },
  RateLimit: { $ref: '#/components/headers/RateLimit' },
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimitPolicy' },
}

const headerComponents = {
  XRateLimitLimit: {
    description: 'Requests the budget allows per window',
    schema: { type: 'integer', examples: [600] },
  },
  XRateLimitRemaining: {
    description: 'Requests left in this window',
    schema: { type: 'integer', examples: [599] },
  },
  XRateLimitReset: {
    description: 'When the window resets (Unix time, seconds)',
    schema: { type: 'integer', examples: [1795944600] },
  },
  RateLimit: {
    description: 'draft-ietf-httpapi-ratelimit-headers: the policy’s remaining requests and seconds to reset',
    schema: { type: 'string', examples: ['"v1";r=599;t=60'] },
  },
  RateLimitPolicy: {
    description: 'draft-ietf-httpapi-ratelimit-headers: quota q per window w seconds',
    schema: { type: 'string', examples: ['"v1";q=600;w=60'] },
  },
  RetryAfter: {
    description: 'Seconds to wait before trying again',
    schema: { type: 'integer', examples: [12] },
  },
}

export const securitySchemes = {
  secretKeyHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'A secret API key (tk_live_…) in the X-API-Key header',
  },
  secretKeyBearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'API key',
    description: 'A secret API key (tk_live_…) as Authorization: Bearer <key>; same key as X-API-Key',
  },
  widgetKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description:
      'A widget key (tk_widget_…) in X-API-Key, sent from a browser whose Origin is on the key’s allowed domains (chat and voice session creation only)',
  },
  studioSession: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'Studio session token from POST /api/auth/login or /api/auth/signup (12 hours); on /v1 and /batch it acts as its member, with their role',
  },
  studioTokenHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Studio-Token',
    description: 'A studio session token (chat and voice session creation: the studio’s Try it panel)',
  },
  adminToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'ADMIN_TOKEN',
    description: 'The operator token (ADMIN_TOKEN)',
  },
  workerToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'WORKER_TOKEN',
    description: 'The voice agent worker’s token (WORKER_TOKEN)',
  },
  chatSessionToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT (chat session)',
    description:
      'The session_token of POST /v1/chat/sessions (24 hours); its conversation id must match the path',
  },
}

const resolve = (document: Json, schema: Json | undefined): Json | undefined => {
  const ref = schema?.$ref as string | undefined
  if (!ref) return schema
  return document.components.schemas[ref.replace('#/components/schemas/', '')]
}

/** The top-level objects of a request body refuse fields they do not name (route-table.ts). */
const makeStrict = (document: Json, schema: Json | undefined) => {
  const target = resolve(document, schema)
  if (!target) return
  for (const option of [...(target.oneOf ?? []), ...(target.anyOf ?? [])]) makeStrict(document, option)
  if (target.type === 'object' && target.additionalProperties === undefined)
    target.additionalProperties = false
}

const nonNull = (schema: Json): Json => {
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((type: string) => type !== 'null')
    const enumValues = schema.enum?.filter((value: unknown) => value !== null)
    return {
      ...schema,
      type: types.length === 1 ? types[0] : types,
      ...(enumValues ? { enum: enumValues } : {}),
    }
  }
  if (schema.anyOf) {
    const options = schema.anyOf.filter((option: Json) => option.type !== 'null')
    return options.length === 1
      ? { ...options[0], ...(schema.description ? { description: schema.description } : {}) }
      : { ...schema, anyOf: options }
  }
  return schema
}

/** CreateAgentRequest as a union discriminated by agentArchitecture, each with its required fields. */
const splitCreateAgent = (document: Json) => {
  const schemas = document.components.schemas
  const base = schemas.CreateAgentRequest as Json | undefined
  if (!base) return
  const mapping: Record<string, string> = {}
  for (const architecture of architectures) {
    const name = `Create${architecture[0]?.toUpperCase()}${architecture.slice(1)}AgentRequest`
    const required = requiredByArchitecture[architecture] as string[]
    const properties = Object.fromEntries(
      Object.entries(base.properties as Record<string, Json>).map(([key, value]) => [
        key,
        required.includes(key) ? nonNull(value) : value,
      ]),
    )
    properties.agentArchitecture = { type: 'string', const: architecture }
    schemas[name] = {
      ...base,
      description: required.length
        ? `A ${architecture} agent: ${required.join(', ')} required`
        : `A ${architecture} agent`,
      properties,
      required: [...new Set([...(base.required ?? []), ...required])],
      additionalProperties: false,
    }
    mapping[architecture] = `#/components/schemas/${name}`
  }
  schemas.CreateAgentRequest = {
    description: 'An agent to create; the fields required depend on agentArchitecture',
    oneOf: Object.values(mapping).map(($ref) => ({ $ref })),
    discriminator: { propertyName: 'agentArchitecture', mapping },
  }
}

/** Limits the services check themselves (so they answer a named code), stated on the schemas. */
const statedLimits = (document: Json) => {
  const schemas = document.components.schemas
  const contact = schemas.BatchContactInput
  if (contact) {
    contact.properties.phone = {
      type: 'string',
      description: 'E.164, or a national number the service can read as one (invalid_phone_format)',
    }
    contact.properties.name = { type: 'string' }
    contact.required = ['phone']
  }
}

const sseEvent = (event: string, data: Json, description: string) => ({
  type: 'object',
  description,
  properties: {
    event: { type: 'string', const: event },
    id: {
      type: 'integer',
      description: 'The event’s id (send it back as Last-Event-ID to resume)',
      examples: [1],
    },
    data,
  },
  required: ['event', 'data'],
  additionalProperties: false,
})

/** Each stream's events as named schemas (the stream body's `contentSchema`). */
const streamEvents = (document: Json, chatEvents: Record<string, Json>) => {
  const schemas = document.components.schemas
  const chatNames: string[] = []
  for (const [event, data] of Object.entries(chatEvents)) {
    const name = `ChatStream${event
      .split('_')
      .map((part) => `${part[0]?.toUpperCase()}${part.slice(1)}`)
      .join('')}Event`
    schemas[name] = sseEvent(event, data, `The chat stream’s \`${event}\` event`)
    chatNames.push(name)
  }
  schemas.ChatStreamEvent = {
    description: 'An event of the chat reply stream (`event:` line, `id:` line, JSON `data:` line)',
    oneOf: chatNames.map((name) => ({ $ref: `#/components/schemas/${name}` })),
    discriminator: {
      propertyName: 'event',
      mapping: Object.fromEntries(
        Object.keys(chatEvents).map((event, index) => [event, `#/components/schemas/${chatNames[index]}`]),
      ),
    },
  }
  const progress = { $ref: '#/components/schemas/BatchProgressEvent' }
  schemas.BatchStreamProgressEvent = sseEvent(
    'progress',
    progress,
    'Counters at connect and after every change',
  )
  schemas.BatchStreamEndEvent = sseEvent('end', progress, 'The final counters; the stream closes')
  schemas.BatchStreamEvent = {
    description: 'An event of the batch progress stream',
    oneOf: [
      { $ref: '#/components/schemas/BatchStreamProgressEvent' },
      { $ref: '#/components/schemas/BatchStreamEndEvent' },
    ],
    discriminator: {
      propertyName: 'event',
      mapping: {
        progress: '#/components/schemas/BatchStreamProgressEvent',
        end: '#/components/schemas/BatchStreamEndEvent',
      },
    },
  }
  const callEvents: Record<string, string> = {
    queued:
      'The call is opened and its credits held; `data` has to, from, agentId and the request’s metadata',
    dialing: 'The SIP dial started',
    ringing: 'The callee’s phone rings',
    answered: 'The callee answered; billing starts',
    transcript: 'A line said on the call; `data` has role, content and spokenAt',
    transferred: 'The call was transferred to a person',
    ended:
      'The call is over; `data` has status, outcome (the end reason), sipStatus (an unanswered dial’s) and durationSeconds; the stream closes',
  }
  const callNames: string[] = []
  for (const [event, description] of Object.entries(callEvents)) {
    const name = `CallStream${event[0]?.toUpperCase()}${event.slice(1)}Event`
    schemas[name] = sseEvent(
      event,
      {
        type: 'object',
        properties: {
          id: { type: 'string', description: 'The same as the `id:` line', examples: ['42'] },
          type: { type: 'string', const: event },
          callId: { type: 'string', examples: ['01JD4MB7K2P4R6T8V0X2Z4B6D8'] },
          at: { type: 'string', format: 'date-time' },
          data: { type: 'object', additionalProperties: true },
        },
        required: ['id', 'type', 'callId', 'at', 'data'],
        additionalProperties: false,
      },
      description,
    )
    callNames.push(name)
  }
  schemas.CallStreamEvent = {
    description: 'An event of a call’s stream (GET /v1/calls/{callId}/events)',
    oneOf: callNames.map((name) => ({ $ref: `#/components/schemas/${name}` })),
    discriminator: {
      propertyName: 'event',
      mapping: Object.fromEntries(
        Object.keys(callEvents).map((event, index) => [event, `#/components/schemas/${callNames[index]}`]),
      ),
    },
  }
  return {
    chat: '#/components/schemas/ChatStreamEvent',
    batch: '#/components/schemas/BatchStreamEvent',
    call: '#/components/schemas/CallStreamEvent',
  }
}

const streamOf: Record<string, 'chat' | 'batch' | 'call'> = {
  postV1ChatSessionsByConversationIdMessages: 'chat',
  getBatchByBatchJobIdEvents: 'batch',
  getV1CallsByCallIdEvents: 'call',
}

/** A stream's body: text whose events (JSON Schema `contentSchema`) are the stream's named schemas. */
const sseText = (example: string, events: string) => ({
  type: 'string',
  description: 'Server-Sent Events; each event’s `data` line is JSON (contentSchema: the events)',
  contentMediaType: 'text/event-stream',
  contentSchema: { $ref: events },
  examples: [example],
})

const liveKitWebhookBody = {
  type: 'object',
  description:
    'A LiveKit WebhookEvent (livekit.io/docs: webhooks) as JSON; the signature covers these exact bytes',
  properties: {
    event: { type: 'string', examples: ['room_finished'] },
    id: { type: 'string', examples: ['EV_3kXq8m2'] },
    createdAt: { type: ['string', 'integer'], examples: ['1795944600'] },
    room: {
      type: 'object',
      properties: { name: { type: 'string', examples: ['call-01JD4MB7K2P4R6T8V0X2Z4B6D8'] } },
    },
    participant: {
      type: 'object',
      properties: { identity: { type: 'string', examples: ['visitor-1'] } },
    },
  },
  required: ['event'],
}

/** Codes a credential's check answers, by security scheme. */
const codesByScheme: Record<string, ErrorCode[]> = {
  secretKeyHeader: ['invalid_api_key'],
  secretKeyBearer: ['invalid_api_key'],
  widgetKey: ['invalid_api_key', 'origin_not_allowed'],
  studioTokenHeader: [],
  chatSessionToken: ['invalid_token', 'conversation_mismatch', 'session_not_found'],
  workerToken: ['invalid_worker_token'],
}

const codesOf = (operation: Json, status: number) => {
  const schemes = ((operation.security ?? []) as Record<string, string[]>[]).flatMap((entry) =>
    Object.keys(entry),
  )
  const codes = new Set([
    ...genericCodes,
    ...(codesByTag[operation.tags?.[0] as string] ?? []),
    ...schemes.flatMap((scheme) => codesByScheme[scheme] ?? []),
  ])
  return [...codes].filter((code) => [statusOfCode[code]].flat().includes(status))
}

/** Credentials whose checks spend from a rate-limit budget that answers with the rate-limit headers. */
const limitedSchemes = new Set(['secretKeyHeader', 'secretKeyBearer', 'widgetKey', 'chatSessionToken'])

const describe = (operation: Json, limited: boolean) => {
  const parts = [operation.summary as string]
  if (notes[operation.operationId]) parts.push(notes[operation.operationId] as string)
  const security = (operation.security ?? []) as Record<string, string[]>[]
  parts.push(
    security.length === 0
      ? 'No credential.'
      : `Credentials: ${security.map((entry) => credentialNames[Object.keys(entry)[0] ?? ''] ?? '').join('; or ')}.`,
  )
  if (limited) parts.push('Rate limited: the X-RateLimit-* and RateLimit headers say how much is left.')
  return parts.join('\n\n')
}

/**
 * Tightens the generated document to the server's rules (see the module comment). `chatEvents`:
 * the JSON Schema of each chat stream event's data, by name (from the shared zod schemas).
 */
export const tightenDocument = (document: Json, { chatEvents }: { chatEvents: Record<string, Json> }) => {
  // A tag an area adds before it is described here still gets declared (this list describes it).
  const used = Object.values(document.paths as Record<string, Record<string, Json>>).flatMap((operations) =>
    Object.values(operations).map((operation) => operation.tags?.[0] as string),
  )
  const known = new Set(tags.map((tag) => tag.name))
  document.tags = [
    ...tags,
    ...[...new Set(used)]
      .filter((name) => name && !known.has(name))
      .map((name) => ({ name, description: `The ${name} operations.` })),
  ]
  document.components.securitySchemes = securitySchemes
  document.components.headers = headerComponents
  splitCreateAgent(document)
  statedLimits(document)
  const streams = streamEvents(document, chatEvents)

  for (const operations of Object.values(document.paths as Record<string, Record<string, Json>>))
    for (const operation of Object.values(operations)) {
      const id = operation.operationId as string
      const json = operation.requestBody?.content?.['application/json']
      if (json) makeStrict(document, json.schema)
      const contacts = resolve(document, json?.schema)?.properties?.contacts
      if (contacts?.items?.$ref === '#/components/schemas/BatchContactInput')
        contacts.maxItems = batchLimits.maxContacts
      const statuses = [
        ...new Set([
          ...Object.keys(operation.responses).map(Number),
          ...(operation.requestBody ? [413] : []),
          ...(extraStatuses[id] ?? []),
        ]),
      ].sort()
      const limited =
        statuses.includes(429) &&
        ((operation.security ?? []) as Record<string, string[]>[]).some((entry) =>
          Object.keys(entry).some((scheme) => limitedSchemes.has(scheme)),
        )
      for (const status of statuses) {
        const key = String(status)
        if (status < 400) {
          if (limited) operation.responses[key].headers = rateLimitHeaders
          continue
        }
        const existing = operation.responses[key]?.content?.['application/json']?.schema
        const area = existing?.allOf?.[0] ?? existing ?? { $ref: '#/components/schemas/V1Error' }
        const codes = codesOf(operation, status)
        operation.responses[key] = {
          description: errorDescriptions[status] ?? 'Error',
          ...(status === 429
            ? { headers: { ...rateLimitHeaders, 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } }
            : {}),
          content: {
            'application/json': {
              schema: codes.length
                ? { allOf: [area, { type: 'object', properties: { code: { type: 'string', enum: codes } } }] }
                : area,
            },
          },
        }
      }
      const stream = streamOf[id]
      if (stream) {
        const success = operation.responses['200']
        success.content = {
          'text/event-stream': {
            schema: sseText(
              stream === 'chat'
                ? 'id: 1\nevent: chunk\ndata: {"delta":"Hello"}\n\n'
                : stream === 'call'
                  ? 'id: 42\nevent: dialing\ndata: {"id":"42","type":"dialing","callId":"01JD4MB7K2P4R6T8V0X2Z4B6D8","at":"2026-11-27T17:00:00.000Z","data":{}}\n\n'
                  : 'id: 1\nevent: progress\ndata: {"batchJobId":"01JD4MD9H1K3M5P7R9T1V3X5Z7"}\n\n',
              streams[stream],
            ),
          },
        }
      }
      if (id === 'getApiExportByIdDownload') {
        operation.responses['200'].content = {
          'application/x-ndjson': {
            schema: {
              type: 'string',
              description: 'One JSON record a line',
              examples: ['{"id":"01JD4MC3N5Q7S9U1W3Y5A7C9E1"}\n'],
            },
          },
          'text/csv': {
            schema: {
              type: 'string',
              description: 'A header row, then one record a row',
              examples: ['id,agent_id\r\n'],
            },
          },
        }
      }
      if (id === 'postLivekitWebhook') {
        operation.requestBody = {
          required: true,
          content: { 'application/webhook+json': { schema: liveKitWebhookBody } },
        }
      }
      operation.description = describe(operation, limited)
    }

  for (const webhook of Object.values((document.webhooks ?? {}) as Record<string, Record<string, Json>>))
    for (const operation of Object.values(webhook)) {
      if (operation.requestBody) operation.requestBody.required = true
      operation.description ??= `${operation.summary}\n\nSigned: check X-Parley-Signature with verifyWebhook (@parley/client) or HMAC-SHA256 of "t.body" under the agent’s webhook secret.`
    }
  return document
}
