/**
 * Realistic examples for the OpenAPI document, so `/docs` (and client generators) show what a
 * real request and answer look like instead of `"string"` and `0`. Every leaf of every schema gets
 * one: an example set on the zod schema wins; an enum or constant gives its first value; a format
 * (date-time, email, uri) gives one of that form; every other leaf is named in the table below by
 * its property name. The table is the one place to add a field's example; the OpenAPI test fails
 * on a leaf it does not cover.
 */

type JsonSchema = {
  type?: string | string[]
  enum?: unknown[]
  const?: unknown
  format?: string
  pattern?: string
  minimum?: number
  maximum?: number
  example?: unknown
  examples?: unknown[]
  properties?: Record<string, JsonSchema>
  items?: JsonSchema
  additionalProperties?: JsonSchema | boolean
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  allOf?: JsonSchema[]
  $ref?: string
}

const ID = {
  agent: '01JD4M8Q2V7X9Z3B5C6D7E8F9G',
  call: '01JD4MB7K2P4R6T8V0X2Z4B6D8',
  conversation: '01JD4MC3N5Q7S9U1W3Y5A7C9E1',
  job: '01JD4MD9H1K3M5P7R9T1V3X5Z7',
  contact: '01JD4ME2F4H6K8M0P2R4T6V8X0',
  phoneNumber: '01JD4MF6B8D0G2J4L6N8Q0S2U4',
  function: '01JD4MG1C3E5G7J9L1N3Q5S7U9',
  organization: '01JD4MH4D6F8H0K2M4P6R8T0W2',
  user: '01JD4MJ8E0G2J4L6N8Q0S2U4W6',
  key: '01JD4MK2F4H6K8M0P2R4T6V8X0',
}
const WHEN = '2026-11-24T09:30:00.000Z'
const LATER = '2026-11-24T09:34:12.000Z'

/**
 * By property name: what a real value of that field looks like; where fields of one name differ
 * (an agent's name, a function's snake_case name), the candidates in order, the first that fits
 * the leaf's type, pattern and format wins.
 */
const byName: Record<string, unknown> = {
  alreadyListed: false,
  already_listed: false,
  note: 'Asked by email not to be called again',
  row: 4,
  skippedDoNotCall: 2,
  averageCallSeconds: 126.5,
  averageFirstReplySeconds: 1.84,
  callCostUsd: 0.0735,
  callMinutes: 4.2,
  calls: 3,
  conversations: 18,
  date: '2026-11-24',
  from: '2026-11-01',
  to: '2026-11-24',
  messages: 96,
  outcomes: 4,
  replyCostUsd: 0.0813,
  '': 'event: chunk\ndata: {"delta":"Hello"}\n\n',
  active: true,
  allowRealCalls: false,
  claimId: '01JD4MR9L1N3Q5S7U9W1Y3A5C7',
  costMicros: 8200,
  deletedFunctions: 'lookup_order',
  done: 2,
  function: 'lookup_order',
  judgeModel: 'gpt-4o-mini',
  knowledge: [true, 'delivery times'],
  leaseSeconds: 360,
  maxTurns: 4,
  opening: 'Hi, I would like to return a jacket.',
  passed: [2, true],
  pattern: '\\border (shipped|delivered)\\b',
  runBeforePublish: true,
  runId: '01JD4MP3J5L7N9Q1S3U5W7Y9A1',
  testId: '01JD4MQ6K8M0P2R4T6V8X0Z2B4',
  testIds: '01JD4MQ6K8M0P2R4T6V8X0Z2B4',
  turns: ['Where is my order A17?', 3],
  variables: ['Ada', 3, true],
  version: [3, 'draft'],
  agentId: ID.agent,
  agent_id: ID.agent,
  agent_model: 'gpt-4o-mini',
  agent_name: 'Support Bot',
  agentName: 'Support Bot',
  allowedDomains: 'shop.example.com',
  amountUsd: 25,
  apiKey: 'sk-proj-3f9a…',
  appended: 2,
  afterMinutes: 10,
  attemptNumber: 1,
  attempts: 1,
  available: true,
  balanceAfterUsd: 24.83,
  balanceUsd: 24.83,
  baseUrl: 'https://api.openai.com/v1',
  batchContactId: ID.contact,
  batch_contact_id: ID.contact,
  batch_job_id: ID.job,
  batchJobId: ID.job,
  builtInFunctions: 'end_call',
  bytes: 1_048_576,
  callId: ID.call,
  call_id: ID.call,
  callingWindow: '{"start":"09:00","end":"17:00","days":["mon","tue","wed","thu","fri"]}',
  cancelled: 0,
  channel: 'text',
  code: 'validation_error',
  completed: 42,
  concurrentCallLimit: 5,
  content: 'Where is my order A17?',
  conversation_id: ID.conversation,
  conversationId: ID.conversation,
  cursor: 'WyIyMDI2LTExLTI0VDA5OjMwOjAwLjAwMFoiLCIwMUpENE1DM04iXQ',
  costUsd: 0.0412,
  count: 12,
  createdBy: ID.user,
  createdAt: WHEN,
  creditBalanceUsd: 24.83,
  deletedByKeyId: ID.key,
  deletedByUserId: ID.user,
  deliveryId: '01JD4MM5G7J9L1N3Q5S7U9W1Y3',
  description: 'Answers questions about orders and returns',
  detail: 'name: must be at least 2 characters',
  downloadUrl: '/api/export/01JD4MN8H0K2M4P6R8T0W2Y4A6/download',
  durationSeconds: 252,
  duration: 252,
  email: 'ada@shop.example.com',
  enabledCustomFunctions: ID.function,
  enabledFunctions: 'end_call',
  end: '17:00',
  endReason: 'user_left',
  ended: true,
  endedAt: LATER,
  endpoint: 'https://shop.example.com/api/orders',
  error: 'Agent not found',
  estimatedCost: '2.10',
  estimatedDuration: '1h 24m',
  event: 'chat.ended',
  failed: 1,
  failureReason: 'The phone number of this job was deleted',
  fallbackModel: 'llama-3.3-70b-versatile',
  fallbackStt: 'groq-whisper-large-v3-turbo',
  fallbackTts: 'openai-tts-1',
  analysisModel: 'gpt-4o-mini',
  analysisError: 'the analysis model failed: 503 upstream unavailable',
  interrupted: false,
  memory: 'Conversation of 2026-11-20:\nUser: My order is A17.\nAgent: It ships Friday.',
  usdPerMinute: 0.0077,
  ownKeyUsdPerMinute: 0.001,
  fallbackFrom: 'gpt-4o-mini',
  field: 'name',
  file: 'phone,name,plan\n+14155550123,Ada Lovelace,Gold\n',
  finalModel: 'gpt-4o-mini',
  finalStt: 'deepgram-nova-3',
  fromPhoneNumberId: ID.phoneNumber,
  functionCallingEnabled: true,
  functionId: ID.function,
  greeting: 'Hi! How can I help with your order?',
  greetingMessage: 'Hi! How can I help with your order?',
  handoffAgentIds: ID.agent,
  // transfers to a person
  destination: '+14155550199',
  destinationName: 'Sales',
  destination_name: 'Sales',
  fromNumber: '+14155550123',
  ringingTimeoutSeconds: 30,
  sipStatus: 486,
  sip_status: 486,
  transferId: '01JD4MT3R5A7N9S1F3E5R7I9D1',
  transfer_id: '01JD4MT3R5A7N9S1F3E5R7I9D1',
  whenToUse: 'The caller wants to buy or asks about prices',
  // inbound calls
  inboundAgentId: ID.agent,
  callerNumber: '+14155550123',
  calledNumber: '+14155550100',
  livekitTrunkId: 'ST_3kTq8ZrW2mNx',
  livekitDispatchRuleId: 'SDR_7pLc4VbN9sQe',
  sipParticipantIdentity: 'sip_+14155550123',
  agentParticipantSid: 'PA_5hYt2KqW8rMz',
  phoneNumbers: '+14155550123',
  // knowledge
  knowledgeSourceIds: '01JD4MM5G7J9L1N3Q5S7U9W1Y3',
  query: 'How do I descale the kettle?',
  instruction:
    'Answer from the passages below, taken from the owner’s own site and documents. If they do not answer the question, say that you do not know rather than guessing.',
  sourceId: '01JD4MM5G7J9L1N3Q5S7U9W1Y3',
  sourceIds: '01JD4MM5G7J9L1N3Q5S7U9W1Y3,01JD4MN8H0K2M4P6R8T0W2Y4A6',
  chunkCount: 42,
  fileType: 'pdf',
  maxPages: 50,
  maxDepth: 3,
  pagesFound: 12,
  pagesDone: 7,
  score: 0.83,
  snippet: 'We are open Monday to Friday from nine to five. Closed on public holidays.',
  text: 'We are open Monday to Friday from nine to five. Closed on public holidays.',
  title: 'Acme help centre › Opening hours',
  hasAnalysis: true,
  hasNext: true,
  headers: 'Bearer shop-secret-…',
  id: ID.agent,
  delta: 'Hello',
  end_session: false,
  from_agent: 'Support Bot',
  to_agent: 'Billing Bot',
  'idempotency-key': '5f2b8c1e-0d4a-4e6f-9a3b-7c8d9e0f1a2b',
  in_progress: 3,
  inactivityTimeout: 30,
  inputUsdPerMillion: 0.15,
  inputTokens: 1840,
  input_tokens: 1840,
  key: 'tk_widget_8Jq2mZ4xR7pL1vN6cT3sB9wK0dF5hY2e',
  keys: 'gsk_org_groq_…',
  kind: 'usage',
  label: 'Look up an order',
  language: 'English',
  languages: 'en',
  'last-event-id': 7,
  last4: 'k0dF',
  lastError: 'busy',
  lastMessage: 'Thanks for calling. Goodbye!',
  lastOutcome: 'answered',
  lastResponse: '{"received":true}',
  lastStatusCode: 200,
  limit: 20,
  liveAgentId: ID.agent,
  livekit_url: 'wss://parley.livekit.cloud',
  maxAttempts: 3,
  messageCount: 6,
  message_count: 6,
  message: 'Where is my order A17?',
  missingKeys: 'groq',
  model: 'gpt-4o-mini',
  name: ['Support Bot', 'lookup_order'],
  nextCursor: 'WyIyMDI2LTExLTI0VDA5OjMwOjAwLjAwMFoiLCIwMUpENE1DM04iXQ',
  number: '+14155550123',
  offset: 0,
  orgId: ID.organization,
  organization: ID.organization,
  organizationId: ID.organization,
  organizationName: 'Northwind Shop',
  outboundAgentId: ID.agent,
  outcome: 'Order status given',
  outputUsdPerMillion: 0.6,
  outputTokens: 412,
  output_tokens: 412,
  overdrawn: false,
  invitationId: '01JD4MQ2B4D6F8H0K2M4P6R8T0',
  invitedBy: 'Ada Lovelace',
  expiresAt: '2026-12-01T09:30:00.000Z',
  declined: true,
  secret: 'mV3kq9Zr0cTf7yHq2LxN4bPw8sJd6gAe1uKo5iRzXvY',
  page: 1,
  password: 'correct horse battery staple',
  pending: 7,
  phone: '+14155550123',
  phoneNumber: '+14155550123',
  phone_number: '+14155550123',
  phoneNumberId: ID.phoneNumber,
  platformProviders: 'openai',
  position: 1,
  postCallAnalysis: true,
  prefix: 'tk_widget_8Jq2mZ4x••••',
  prompt: 'You help customers of Northwind Shop with orders and returns.',
  provider: 'openai',
  providerModel: 'gpt-4o-mini',
  providerVoiceId: 'f786b574-daa5-4673-aa0c-cbe3e8534c02',
  q: 'refund',
  rateLimitPerMinute: 300,
  realtime: 'openai',
  realtimeProvider: 'openai',
  reason: 'Top-up by invoice 2026-118',
  redirectUrl: 'https://studio.example.com/organization/provider-keys',
  requeued: 2,
  rowsDone: 41_500,
  rowsTotal: 100_000,
  roomName: `agent_${ID.agent}_${ID.user}_1764063000000`,
  room_name: `agent_${ID.agent}_${ID.user}_1764063000000`,
  scheduledStartTime: ['2026-11-25T09:00:00', '2026-11-25T09:00:00.000-05:00'],
  session_token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIwMUpENE1DM04ifQ.c2lnbmF0dXJl',
  sipTrunkId: 'ST_3kVn8qL2xPz7',
  spokenAt: WHEN,
  start: '09:00',
  startedAt: WHEN,
  stt: 'deepgram-nova-3',
  summary: 'The customer asked where order A17 is; the agent said it ships tomorrow.',
  sysMsg: 'You help customers of Northwind Shop with orders and returns.',
  systemPrompt: 'You help customers of Northwind Shop with orders and returns.',
  targetAgentId: ID.agent,
  targetId: ID.conversation,
  temperature: 0.7,
  total_contacts: 50,
  total_cost: 0.0412,
  timeZone: 'America/New_York',
  timestamp: WHEN,
  timezone: 'America/New_York',
  token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIwMUpENE1KOCJ9.c2lnbmF0dXJl',
  token_count: 14,
  total: 57,
  totalContacts: 250,
  tries: 2,
  tts: 'cartesia-sonic-2',
  unavailableReason: 'The provider groq is not configured: set GROQ_API_KEY or store your Groq key',
  unknownPlaceholders: 'plan',
  updatedAt: LATER,
  url: 'https://hooks.shop.example.com/parley',
  usedDefaults: false,
  voice_available: true,
  userId: ID.user,
  user_identifier: 'customer-8812',
  userIdentifier: 'customer-8812',
  userVerified: true,
  user_hash: 'a3f1c2d4e5b6a7980f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a6978',
  visitor_id: '3b241101-e2bb-4255-8caf-4136c566a962',
  voice: 'f786b574-daa5-4673-aa0c-cbe3e8534c02',
  voiceId: 'cartesia-katie',
  voiceName: 'Katie',
  webhookSecret: 'whsec_7d1f0c9a4b2e8f6a3c5d7e9f1a2b4c6d',
  webhookUrl: 'https://hooks.shop.example.com/parley',
}

const byFormat: Record<string, unknown> = {
  'date-time': WHEN,
  date: '2026-11-24',
  email: 'ada@shop.example.com',
  uri: 'https://shop.example.com',
}

const leafTypeOf = (schema: JsonSchema) => {
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []
  return types.find((type) => type !== 'null' && type !== 'object' && type !== 'array')
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/

/** Whether an example is of the leaf's type, pattern and format. */
const fits = (leaf: JsonSchema, example: unknown) => {
  if (example === null) return true
  const type = leafTypeOf(leaf)
  if (type === 'integer') return Number.isInteger(example)
  if (typeof example !== type) return false
  if (typeof example !== 'string') return true
  if (leaf.pattern && !new RegExp(leaf.pattern, 'u').test(example)) return false
  return leaf.format !== 'date-time' || DATE_TIME.test(example)
}

/** The example a leaf gets, or undefined when nothing describes it (the test reports those). */
const exampleOf = (schema: JsonSchema, name: string): unknown => {
  if (schema.enum?.length) return schema.enum.find((value) => value !== null) ?? null
  if (schema.const !== undefined) return schema.const
  const named = byName[name]
  const candidates = name in byName ? (Array.isArray(named) ? named : [named]) : []
  if (schema.format && schema.format in byFormat) candidates.push(byFormat[schema.format])
  return candidates.find((candidate) => fits(schema, candidate))
}

/** Calls `visit` on every leaf schema (string, number, integer, boolean) with its property name. */
const walk = (
  schema: JsonSchema | undefined,
  name: string,
  visit: (leaf: JsonSchema, name: string) => void,
) => {
  if (!schema || typeof schema !== 'object' || schema.$ref) return
  for (const [key, value] of Object.entries(schema.properties ?? {})) walk(value, key, visit)
  walk(schema.items, name, visit)
  if (typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, name, visit)
  for (const options of [schema.anyOf, schema.oneOf, schema.allOf])
    for (const option of options ?? []) walk(option, name, visit)
  if (leafTypeOf(schema)) visit(schema, name)
}

type Document = {
  components?: { schemas?: Record<string, JsonSchema> }
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { name: string; schema?: JsonSchema }[]
        requestBody?: { content: Record<string, { schema?: JsonSchema }> }
        responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>
      }
    >
  >
}

/** Every schema of the document, each with the name of the property or parameter it describes. */
const schemasOf = (document: Document) => {
  const found: Array<[JsonSchema | undefined, string]> = []
  for (const schema of Object.values(document.components?.schemas ?? {})) found.push([schema, ''])
  for (const operations of Object.values(document.paths))
    for (const operation of Object.values(operations)) {
      for (const parameter of operation.parameters ?? []) found.push([parameter.schema, parameter.name])
      for (const media of Object.values(operation.requestBody?.content ?? {})) found.push([media.schema, ''])
      for (const response of Object.values(operation.responses ?? {}))
        for (const media of Object.values(response.content ?? {})) found.push([media.schema, ''])
    }
  return found
}

/** The leaves (by name) without an example, or with a placeholder one (`"string"`, `0`). */
export const leavesWithoutExample = (document: Document): string[] => {
  const found = new Set<string>()
  for (const [schema, name] of schemasOf(document))
    walk(schema, name, (leaf, leafName) => {
      const example = leaf.examples?.[0] ?? leaf.example
      if (example === undefined || example === 'string') found.add(leafName || '(unnamed)')
    })
  return [...found].sort()
}

/** Sets an example on every leaf that has none; answers the names of leaves nothing described. */
export const addExamples = (document: Document): string[] => {
  const missing = new Set<string>()
  for (const [schema, name] of schemasOf(document))
    walk(schema, name, (leaf, leafName) => {
      if (leaf.example !== undefined || leaf.examples?.length) return
      const example = exampleOf(leaf, leafName)
      if (example === undefined) missing.add(leafName || '(unnamed)')
      else leaf.examples = [example]
    })
  return [...missing].sort()
}
