import { z } from 'zod'

/** A refused input's problems, one per field (validation errors only). */
export const ZInputIssues = z
  .array(z.object({ field: z.string(), message: z.string() }))
  .meta({ id: 'InputIssues', description: 'Every problem of a refused input, each naming its field' })

/**
 * The three error body shapes of the contract, one per API area.
 * - v1 (and the operator API): `{ success: false, error, code }`
 * - studio (`/api/*`): `{ error, code }` — the spec's `{error}` plus the machine code
 * - chat, voice and batch: `{ detail, code }` — the spec's `{detail}` plus the machine code.
 */
export const ZV1Error = z
  .object({
    success: z.literal(false),
    error: z.string(),
    code: z.string(),
    issues: ZInputIssues.optional(),
    /** tests_failed: the test run that failed. */
    runId: z.string().optional(),
  })
  .meta({ id: 'V1Error', description: 'Error body of the v1 and operator APIs' })
export type V1Error = z.infer<typeof ZV1Error>

export const ZStudioError = z
  .object({ error: z.string(), code: z.string(), issues: ZInputIssues.optional() })
  .meta({ id: 'StudioError', description: 'Error body of the studio API (/api/*)' })
export type StudioError = z.infer<typeof ZStudioError>

export const ZDetailError = z
  .object({ detail: z.string(), code: z.string(), issues: ZInputIssues.optional() })
  .meta({ id: 'DetailError', description: 'Error body of the chat, voice and batch APIs' })
export type DetailError = z.infer<typeof ZDetailError>

export const errorAreas = ['v1', 'studio', 'detail'] as const
export type ErrorArea = (typeof errorAreas)[number]

/** Every machine-readable error code the service answers with. */
export const errorCodes = [
  // general
  'validation_error',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  // too many open event streams for one API key or one organization
  'too_many_streams',
  'internal_error',
  'service_unavailable',
  'https_required',
  // bytes no input may hold: NUL, invalid UTF-8, malformed percent-escapes, over-deep JSON
  'invalid_encoding',
  // the client hung up before its request body was read (logged as 499; nobody hears the answer)
  'client_closed_request',
  // api keys
  'origin_not_allowed',
  'key_revoked',
  // accounts
  'invalid_credentials',
  'email_taken',
  'already_member',
  'invitation_expired',
  'insufficient_credits',
  'missing_provider_key',
  // chat (spec "Chat API codes")
  'not_text_agent',
  'message_too_long',
  'invalid_api_key',
  'invalid_token',
  'conversation_mismatch',
  'session_not_found',
  // chat resume: an Idempotency-Key sent again with another message
  'idempotency_key_reused',
  // a user_identifier's user_hash that is not its HMAC under the organization's identity secret
  'invalid_user_hash',
  // phone numbers
  'invalid_phone_number',
  'phone_number_taken',
  'invalid_outbound_agent',
  'invalid_inbound_agent',
  // another organization's number already answers the same E.164 number through LiveKit
  'inbound_number_taken',
  // batch create (spec "Batch create errors")
  'invalid_csv',
  'missing_phone_column',
  'no_valid_contacts',
  'too_many_contacts',
  'invalid_timezone',
  'past_scheduled_time',
  'invalid_phone_format',
  'no_outbound_agent',
  'csv_processing_failure',
  // batch CSV limits, checked as the file is read
  'csv_too_many_columns',
  'csv_header_too_large',
  'csv_row_too_large',
  'csv_field_too_large',
  // batch job control
  'invalid_job_state',
  // agents: an inactive agent is not live to the public (widget keys, phone numbers, batch jobs)
  'agent_inactive',
  // voice sessions and calls
  'not_voice_agent',
  'media_server_error',
  // no LiveKit on this deployment: voice sessions can never start here
  'voice_off',
  'invalid_signature',
  'invalid_worker_token',
  // the voice worker's endpoints and the model providers
  'call_ended',
  'invalid_handoff_target',
  // a voice test case whose claim (lease) ended before the worker's request
  'claim_lost',
  // transfer_call: a name that is not one of the live agent's transferDestinations; no number to dial out on
  'invalid_transfer_destination',
  'no_transfer_line',
  'provider_not_configured',
  // data exports (POST /api/export)
  'export_too_large',
  'export_not_ready',
  // knowledge sources
  'knowledge_quota_exceeded',
  'unsupported_file_type',
  'knowledge_source_not_ready',
  // agent tests: a publish refused because the agent's tests failed on the draft (the run's id beside)
  'tests_failed',
  // do-not-call: the number is on the organization's do-not-call list (POST /v1/calls)
  'do_not_call',
] as const
export type ErrorCode = (typeof errorCodes)[number]
