import type {
  AmdVerdict,
  BatchContactStatus,
  BatchJobStatus,
  CallingWindow,
  CallOutcome,
  RetryPolicy,
} from '@parley/shared'
import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type Json<T> = ColumnType<T, string, string>

export interface UsersTable {
  id: string
  email: string
  name: string
  password_hash: string
  created_at: Timestamp
}

export interface OrganizationsTable {
  id: string
  name: string
  tier: 'free' | 'pro' | 'enterprise'
  rate_limit_per_minute: number | null
  credit_balance_micros: Generated<number>
  created_at: Timestamp
  /** Sealed (crypto/secret-box); signs visitors' user_identifier (migration 0029). */
  identity_secret: string | null
  identity_secret_created_at: Timestamp | null
  /** Days kept; null: forever (migration 0061, retention/). */
  retention_conversation_days: number | null
  retention_call_days: number | null
  retention_export_days: number | null
}

/** One change in an organization: who (member, key, operator, system), what, when, from where. */
export interface AuditLogTable {
  id: string
  organization_id: string
  action: string
  target_kind: string
  target_id: string | null
  actor_kind: 'member' | 'key' | 'operator' | 'system'
  actor_id: string | null
  ip: string | null
  details: ColumnType<Record<string, unknown>, string | undefined, never>
  created_at: Timestamp
}

export interface DoNotCallTable {
  organization_id: string
  phone_number: string
  id: string
  source_kind: 'api' | 'import' | 'call' | 'conversation'
  source: string
  note: string | null
  created_at: Timestamp
}

export interface MembershipsTable {
  organization_id: string
  user_id: string
  role: 'owner' | 'admin' | 'member'
  created_at: Timestamp
}

export interface InvitationsTable {
  id: string
  organization_id: string
  email: string
  role: 'owner' | 'admin' | 'member'
  invited_by: string
  created_at: Timestamp
  accepted_at: Timestamp | null
  expires_at: Timestamp
  declined_at: Timestamp | null
}

export interface CreditLedgerTable {
  id: string
  organization_id: string
  amount_micros: number
  balance_after_micros: number
  kind: string
  reason: string
  reference: string | null
  created_at: Timestamp
}

export interface DeletionsTable {
  id: string
  organization_id: string
  kind: 'conversation' | 'call'
  target_id: string
  deleted_by_key_id: string | null
  deleted_by_user_id: string | null
  created_at: Timestamp
}

export interface ServerInstancesTable {
  id: string
  last_seen_at: Timestamp
}

export interface CreditHoldsTable {
  id: string
  organization_id: string
  amount_micros: number
  kind: 'reply' | 'call'
  reference: string | null
  created_at: Generated<Timestamp>
  expires_at: Timestamp
  /** A chat reply's: the instance streaming it, what its checkpoints write, its round in progress. */
  instance_id: string | null
  message_id: string | null
  model: string | null
  prompt_tokens: number | null
  used_micros: Generated<number>
  text_offset: Generated<number>
}

export interface ApiKeysTable {
  id: string
  organization_id: string
  created_by: string | null
  name: string
  type: 'secret' | 'widget'
  key_hash: string
  prefix: string
  allowed_domains: Json<string[]>
  status: Generated<'active' | 'disabled' | 'revoked'>
  created_at: Timestamp
  expires_at: Timestamp
  revoked_at: Timestamp | null
  last_used_at: Timestamp | null
}

export interface AgentsTable {
  id: string
  organization_id: string
  user_id: string
  name: string
  description: string | null
  agent_architecture: 'pipeline' | 'realtime' | 'text'
  mode: 'public' | 'private' | 'commercial'
  model: string | null
  stt: string | null
  tts: string | null
  voice_id: string | null
  realtime_provider: 'openai' | 'gemini' | null
  sys_msg: string | null
  greeting_type: 'agentFirst' | 'userFirst'
  greeting_message: string | null
  last_message: string | null
  temperature: number
  inactivity_timeout: number
  function_calling_enabled: boolean
  enabled_functions: Json<string[]>
  enabled_custom_functions: Json<string[]>
  languages: Json<string[]>
  active: boolean
  webhook_url: string | null
  webhook_secret_box: string | null
  handoff_agent_ids: Json<string[]>
  knowledge_source_ids: ColumnType<string[], string | undefined, string>
  post_call_analysis: Generated<boolean>
  fallback_model: string | null
  /** Realtime agents: the text model of post-call analysis; null: the catalogue's default (0075). */
  analysis_model: ColumnType<string | null, string | null | undefined, string | null>
  /** Voice agents: STT and TTS the worker turns to when the agent's own fail (0075). */
  fallback_stt: ColumnType<string | null, string | null | undefined, string | null>
  fallback_tts: ColumnType<string | null, string | null | undefined, string | null>
  /** The webhook events the agent's endpoint receives. */
  webhook_events: ColumnType<string[], string | undefined, string>
  /** JSON Schema of the values post-call analysis fills; null: none. */
  analysis_schema: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>
  /** People the agent may transfer a call to: [{name, destination, whenToUse, mode}]. */
  transfer_destinations: ColumnType<TransferDestinationJson[], string | undefined, string>
  /** Outbound calls on a voicemail box or a phone menu: {action, message, onPhoneMenu}. */
  voicemail: ColumnType<VoicemailJson, string | undefined, string>
  created_at: Timestamp
  updated_at: Timestamp
}

type VoicemailJson = {
  action: 'hang_up' | 'leave_message'
  message: string | null
  onPhoneMenu: 'navigate' | 'hang_up'
}
type TransferDestinationJson = { name: string; destination: string; whenToUse: string; mode: 'cold' | 'warm' }

/** A call's transfer to a person (migration 0048). */
export interface CallTransfersTable {
  id: string
  call_id: string
  organization_id: string
  agent_id: string
  destination_name: string
  destination: string
  mode: 'cold' | 'warm'
  method: 'refer' | 'dial'
  status: 'dialing' | 'transferred' | 'no_answer' | 'declined' | 'failed'
  sip_status: number | null
  created_at: Generated<Date>
  finished_at: Date | null
}

export interface OrganizationProviderKeysTable {
  organization_id: string
  provider: string
  key_box: string
  last4: string
  updated_at: Timestamp
}

export interface CustomFunctionsTable {
  id: string
  organization_id: string
  agent_id: string
  name: string
  label: string
  description: string
  endpoint: string
  method: 'GET' | 'POST' | 'PUT' | 'PATCH'
  headers_box: string
  parameters: Json<Record<string, unknown>>
  created_at: Timestamp
  updated_at: Timestamp
}

export interface IdempotencyKeysTable {
  organization_id: string
  key: string
  request_hash: string
  response_status: number | null
  response_body: string | null
  created_at: Generated<Date>
  expires_at: Timestamp
}

export interface ConversationsTable {
  id: string
  organization_id: string
  agent_id: string
  agent_name: string
  api_key_id: string | null
  user_identifier: string | null
  /** `user:<identifier>` (trusted) or `visitor:<hash>`; null: no memory (migration 0029). */
  memory_identity: string | null
  user_verified: Generated<boolean>
  metadata: Json<Record<string, unknown>>
  status: Generated<'active' | 'ended' | 'expired'>
  created_at: Timestamp
  last_activity_at: Timestamp
  ended_at: Timestamp | null
  current_agent_id: string | null
  input_tokens: Generated<number>
  output_tokens: Generated<number>
  cost_micros: Generated<number>
  reply_started_at: Timestamp | null
  /** The instance streaming the reply in progress (its heartbeat says whether it lives). */
  reply_instance_id: string | null
  analysis_summary: string | null
  analysis_sentiment: 'positive' | 'neutral' | 'negative' | null
  analysis_outcome: string | null
  analysis_data: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>
  analyzed_at: Timestamp | null
  /** Kept by a trigger on chat_messages (migration 0027). */
  message_count: Generated<number>
  first_user_at: Timestamp | null
  first_reply_seconds: number | null
  /** The agent version it ran on, set by a trigger (migration 0055). */
  agent_version: Generated<number | null>
  /** Opened by the studio on the agent's draft (migration 0078). */
  agent_draft: Generated<boolean>
}

export interface ChatMessagesTable {
  id: string
  conversation_id: string
  role: 'user' | 'assistant'
  content: string
  token_count: number | null
  status: Generated<'complete' | 'partial' | 'stopped'>
  /** The knowledge sources the reply was given (migration 0037). */
  sources: ColumnType<
    Array<{ title: string; url: string | null; snippet: string }> | null,
    string | null | undefined,
    string | null
  >
  /** The catalogue model that answered (assistant messages). */
  model: string | null
  /** Set when the reply switched to the agent's fallback model: the model that failed. */
  fallback_from: string | null
  /** How it was said: typed, or spoken in a call (`call_id`) that continued the conversation. */
  channel: Generated<'text' | 'voice'>
  call_id: string | null
  created_at: Timestamp
}

export interface MemorySummariesTable {
  organization_id: string
  identity: string
  summary: string
  updated_at: Timestamp
}

export interface WebhookDeliveriesTable {
  id: string
  organization_id: string
  agent_id: string
  event: string
  url: string
  payload: Json<Record<string, unknown>>
  status: Generated<'pending' | 'succeeded' | 'failed'>
  attempts: Generated<number>
  last_status_code: number | null
  last_error: string | null
  /** The start of the endpoint's last answer (RESPONSE_EXCERPT characters). */
  last_response: string | null
  created_at: Timestamp
  last_attempt_at: Timestamp | null
  next_attempt_at: Timestamp | null
}

export interface CallsTable {
  id: string
  organization_id: string
  agent_id: string
  user_id: string | null
  key_id: string | null
  room_name: string
  architecture: 'pipeline' | 'realtime'
  direction: 'web' | 'outbound' | 'inbound'
  status: Generated<'active' | 'ended' | 'failed'>
  started_at: Timestamp
  ended_at: Timestamp | null
  duration_seconds: number | null
  cost_micros: Generated<number>
  end_reason: string | null
  phone_number: string | null
  /** Inbound calls: the organization's number the caller rang (migration 0073). */
  called_number: Generated<string | null>
  /** Inbound calls: the caller's SIP participant identity in the room (migration 0073). */
  sip_identity: Generated<string | null>
  batch_job_id: string | null
  batch_contact_id: string | null
  created_at: Timestamp
  person_joined_at: Timestamp | null
  agent_taken_at: Timestamp | null
  agent_participant_sid: string | null
  billing_since: Timestamp | null
  accrued_micros: Generated<number>
  live_agent_id: string | null
  /** The chat conversation this call continues, when the visitor switched from typing. */
  conversation_id: string | null
  analysis_summary: string | null
  analysis_sentiment: 'positive' | 'neutral' | 'negative' | null
  analysis_outcome: string | null
  analysis_data: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>
  analyzed_at: Timestamp | null
  /** 'analyzed', or 'skipped' with analysis_error saying why no model could analyse it (0075). */
  analysis_status: ColumnType<'analyzed' | 'skipped' | null, string | null | undefined, string | null>
  analysis_error: ColumnType<string | null, string | null | undefined, string | null>
  /** Micro-USD a minute at the live agent's models and keys; null: its architecture's flat price (0076). */
  micros_per_minute: ColumnType<number | null, number | null | undefined, number | null>
  /** The agent version it ran on, set by a trigger (migration 0055). */
  agent_version: Generated<number | null>
  /** How it ended from the caller's side, set by its close (migration 0068). */
  outcome: CallOutcome | null
  sip_status: number | null
  amd_verdict: AmdVerdict | null
  /** A webhook's close waiting for the worker's end: its `ended` event is sent by then at the latest (0081). */
  end_held_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>
}

/** What happened on a call, in order (GET /v1/calls/{id}/events; migration 0045). */
export interface CallEventsTable {
  id: ColumnType<string, never, never>
  call_id: string
  type: string
  data: ColumnType<Record<string, unknown>, string | undefined, never>
  created_at: Generated<Date>
}

/** A tool the agent called during a chat reply, or a handoff to another agent. */
export interface ChatToolCallsTable {
  id: string
  conversation_id: string
  kind: 'function' | 'end_call' | 'handoff' | 'unknown'
  name: string
  arguments: Json<unknown>
  status: 'completed' | 'failed'
  target_agent_id: string | null
  created_at: Timestamp
}

export interface ExportsTable {
  id: string
  organization_id: string
  requested_by: string
  kind: 'conversations' | 'calls' | 'batch_contacts' | 'ledger' | 'audit_log'
  format: 'ndjson' | 'csv'
  from_at: Timestamp | null
  to_at: Timestamp | null
  status: 'queued' | 'running' | 'completed' | 'failed'
  rows_total: number
  rows_done: Generated<number>
  /** bigint: read as a string by pg. */
  bytes: ColumnType<string | number, number | undefined, number>
  chunks: Generated<number>
  error: string | null
  created_at: Timestamp
  completed_at: Timestamp | null
  expires_at: Timestamp
  /** The instance writing it while running; its silence lets another run it again. */
  instance_id: string | null
  /** Runs started, the first included; a fourth is not started. */
  runs: Generated<number>
}

export interface ExportChunksTable {
  export_id: string
  seq: number
  /** A piece of the file's UTF-8 text. */
  data: string
}

export interface CallTranscriptLinesTable {
  id: string
  call_id: string
  organization_id: string
  role: 'user' | 'assistant'
  content: string
  spoken_at: Timestamp
  position: number
  /** The id the voice worker gave the line (migration 0040): a retried batch is stored once. */
  worker_line_id: string | null
  /** The caller spoke over the agent and cut this turn off (0075). */
  interrupted: Generated<boolean>
}

/** A tool the voice agent called during a call, or a handoff it made (migration 0040). */
export interface CallToolCallsTable {
  id: string
  call_id: string
  organization_id: string
  /** The worker's id of the call (the model's tool call id): a retried batch is stored once. */
  worker_call_id: string
  kind: 'function' | 'end_call' | 'handoff' | 'unknown'
  name: string
  arguments: Json<unknown>
  status: 'completed' | 'failed'
  target_agent_id: string | null
  created_at: Timestamp
}

export interface PhoneNumbersTable {
  id: string
  organization_id: string
  number: string
  label: string | null
  outbound_agent_id: string | null
  sip_trunk_id: string
  created_at: Timestamp
  updated_at: Timestamp
  /** Calls to the number are answered by this agent (migration 0072). */
  inbound_agent_id: Generated<string | null>
  livekit_inbound_trunk_id: Generated<string | null>
  livekit_dispatch_rule_id: Generated<string | null>
  inbound_synced_at: Generated<Date | null>
  inbound_sync_error: Generated<string | null>
}

export interface BatchJobsTable {
  id: string
  organization_id: string
  phone_number_id: string
  agent_id: string
  key_id: string | null
  name: string
  description: string | null
  status: BatchJobStatus
  concurrent_call_limit: number
  max_attempts: number
  scheduled_start_time: Timestamp | null
  timezone: Generated<string>
  calling_window: ColumnType<CallingWindow | null, string | null, string | null>
  /** Its own retry rules by outcome (migration 0069); null: the defaults. */
  retry_policy: ColumnType<RetryPolicy | null, string | null | undefined, string | null>
  total_contacts: number
  estimated_cost_micros: number
  failure_reason: string | null
  unknown_placeholders: ColumnType<string[], string | undefined, string>
  created_at: Timestamp
  started_at: Timestamp | null
  finished_at: Timestamp | null
  updated_at: Timestamp
}

export interface BatchContactsTable {
  id: string
  batch_job_id: string
  organization_id: string
  position: number
  phone: string
  name: string | null
  fields: Json<Record<string, unknown>>
  time_zone: string | null
  status: Generated<BatchContactStatus>
  attempts: Generated<number>
  next_attempt_at: Timestamp
  last_error: string | null
  last_outcome: string | null
  call_id: string | null
  updated_at: Timestamp
}

export interface BatchAttemptsTable {
  id: string
  batch_contact_id: string
  batch_job_id: string
  attempt_number: number
  started_at: Timestamp
  finished_at: Timestamp | null
  outcome: 'answered' | CallOutcome | null
  sip_status: number | null
  call_id: string | null
  error: string | null
  /** The instance that claimed it (its heartbeat says whether the dial's worker lives). */
  instance_id: string | null
}

export interface AgentVersionsTable {
  agent_id: string
  number: number
  settings: Json<Record<string, unknown>>
  functions: Json<Record<string, unknown>[]>
  published_by: string | null
  note: Generated<string>
  created_at: Timestamp
}

export interface AgentDraftsTable {
  agent_id: string
  settings: Json<Record<string, unknown>>
  updated_by: string | null
  updated_at: Timestamp
}

export interface AgentTestsTable {
  id: string
  organization_id: string
  agent_id: string
  name: string
  definition: Json<Record<string, unknown>>
  created_at: Timestamp
  updated_at: Timestamp
}

export interface AgentTestRunsTable {
  id: string
  organization_id: string
  agent_id: string
  version: number | null
  status: string
  trigger: string
  test_ids: Json<string[]>
  total: number
  done: Generated<number>
  passed: Generated<number>
  failed: Generated<number>
  results: ColumnType<unknown[], string | undefined, string>
  error: string | null
  started_by: string | null
  created_at: Timestamp
  finished_at: Timestamp | null
  /** The instance running it (migration 0077). */
  instance_id: Generated<string | null>
  /** Who runs it: a server job (chat path) or the voice worker (migration 0086). */
  runner: Generated<string>
}

/** A case of a voice run a worker is running, with its lease (migration 0086). */
export interface AgentTestCaseClaimsTable {
  run_id: string
  test_id: string
  claim_id: string
  lease_until: Timestamp
  attempts: Generated<number>
  active: Generated<boolean>
  hold_id: string | null
  live_agent_id: string
  cost_micros: ColumnType<string | number, number | undefined, number>
}

export interface AgentTestSettingsTable {
  agent_id: string
  run_before_publish: Generated<boolean>
}

export interface Database {
  users: UsersTable
  organizations: OrganizationsTable
  memberships: MembershipsTable
  invitations: InvitationsTable
  credit_ledger: CreditLedgerTable
  credit_holds: CreditHoldsTable
  server_instances: ServerInstancesTable
  deletions: DeletionsTable
  api_keys: ApiKeysTable
  agents: AgentsTable
  agent_versions: AgentVersionsTable
  agent_drafts: AgentDraftsTable
  agent_tests: AgentTestsTable
  agent_test_runs: AgentTestRunsTable
  agent_test_settings: AgentTestSettingsTable
  agent_test_case_claims: AgentTestCaseClaimsTable
  organization_provider_keys: OrganizationProviderKeysTable
  custom_functions: CustomFunctionsTable
  idempotency_keys: IdempotencyKeysTable
  conversations: ConversationsTable
  webhook_deliveries: WebhookDeliveriesTable
  chat_messages: ChatMessagesTable
  memory_summaries: MemorySummariesTable
  calls: CallsTable
  call_transfers: CallTransfersTable
  call_transcript_lines: CallTranscriptLinesTable
  call_events: CallEventsTable
  call_tool_calls: CallToolCallsTable
  chat_tool_calls: ChatToolCallsTable
  exports: ExportsTable
  export_chunks: ExportChunksTable
  phone_numbers: PhoneNumbersTable
  batch_jobs: BatchJobsTable
  batch_contacts: BatchContactsTable
  batch_attempts: BatchAttemptsTable
  audit_log: AuditLogTable
  do_not_call: DoNotCallTable
}
