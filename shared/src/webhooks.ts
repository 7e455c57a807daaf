import { z } from 'zod'
import { ZAmdVerdict } from './agent-worker.ts'
import { ZCallOutcome } from './calls.ts'
import { ZIsoDateTime } from './common.ts'
import { ZAnalysis } from './conversations.ts'

/**
 * What an agent's webhook endpoint receives: `{event, timestamp, data}`, signed in
 * `X-Parley-Signature` (t=<unix>,v1=<HMAC-SHA256 of "t.body">). The server builds these payloads;
 * the schemas document them (OpenAPI `webhooks`) and let receivers type them.
 */
const envelope = <Event extends string, Data extends z.ZodRawShape>(event: Event, data: Data, id: string) =>
  z.object({ event: z.literal(event), timestamp: ZIsoDateTime, data: z.object(data) }).meta({ id })

const analysis = ZAnalysis.omit({ analyzedAt: true }).shape

export const ZChatEndedEvent = envelope(
  'chat.ended',
  {
    conversation_id: z.string(),
    agent_id: z.string(),
    agent_name: z.string(),
    duration: z.number().int().meta({ description: 'Seconds from the session’s start to its end' }),
    message_count: z.number().int(),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    total_cost: z.number().meta({ description: 'USD' }),
  },
  'ChatEndedEvent',
)

export const ZCallEndedEvent = envelope(
  'call.ended',
  {
    call_id: z.string(),
    agent_id: z.string(),
    agent_name: z.string(),
    room_name: z.string(),
    direction: z.enum(['web', 'outbound']),
    status: z.enum(['active', 'ended', 'failed']),
    reason: z.string().nullable(),
    outcome: ZCallOutcome.nullable().meta({ description: 'How the call ended from the caller’s side' }),
    sip_status: z.number().int().nullable().meta({ description: 'The SIP status of an unanswered dial' }),
    amd_verdict: ZAmdVerdict.nullable().meta({ description: 'What answering-machine detection decided' }),
    started_at: ZIsoDateTime,
    ended_at: ZIsoDateTime.nullable(),
    duration: z.number().int(),
    total_cost: z.number().meta({ description: 'USD' }),
    phone_number: z.string().nullable(),
    batch_job_id: z.string().nullable(),
    batch_contact_id: z.string().nullable(),
  },
  'CallEndedEvent',
)

export const ZCallTransferredEvent = envelope(
  'call.transferred',
  {
    call_id: z.string(),
    transfer_id: z.string(),
    agent_id: z.string(),
    agent_name: z.string(),
    direction: z.enum(['web', 'outbound', 'inbound']),
    destination_name: z.string(),
    destination: z.string().meta({ description: 'The E.164 number or SIP URI' }),
    mode: z.enum(['cold', 'warm']),
    method: z.enum(['refer', 'dial']),
    result: z.enum(['transferred', 'no_answer', 'declined', 'failed']),
    sip_status: z.number().int().nullable(),
    transferred_at: ZIsoDateTime,
  },
  'CallTransferredEvent',
)

export const ZConversationAnalyzedEvent = envelope(
  'conversation.analyzed',
  { conversation_id: z.string(), agent_id: z.string(), ...analysis },
  'ConversationAnalyzedEvent',
)

export const ZCallAnalyzedEvent = envelope(
  'call.analyzed',
  {
    call_id: z.string(),
    agent_id: z.string(),
    conversation_id: z.string().nullable(),
    batch_job_id: z.string().nullable(),
    ...analysis,
  },
  'CallAnalyzedEvent',
)

export const ZBatchCompletedEvent = envelope(
  'batch.completed',
  {
    batch_job_id: z.string(),
    name: z.string(),
    agent_id: z.string(),
    status: z.literal('completed'),
    total_contacts: z.number().int(),
    completed: z.number().int(),
    failed: z.number().int(),
    cancelled: z.number().int(),
    started_at: ZIsoDateTime.nullable(),
    finished_at: ZIsoDateTime.nullable(),
  },
  'BatchCompletedEvent',
)

export const ZBatchFailedEvent = envelope(
  'batch.failed',
  {
    batch_job_id: z.string(),
    name: z.string(),
    agent_id: z.string(),
    status: z.literal('failed'),
    reason: z.string().meta({
      description: 'Why the job stopped, in words (what to fix before POST /batch/{id}/retry-failed)',
      example: 'Credits ran out: the balance is below the cost of one average call',
    }),
    total_contacts: z.number().int(),
    completed: z.number().int(),
    failed: z.number().int(),
    cancelled: z.number().int(),
    started_at: ZIsoDateTime.nullable(),
    finished_at: ZIsoDateTime.nullable(),
  },
  'BatchFailedEvent',
)

export const ZContactOptedOutEvent = envelope(
  'contact.opted_out',
  {
    phone_number: z.string().meta({ description: 'The E.164 number now on the do-not-call list' }),
    agent_id: z.string(),
    agent_name: z.string(),
    channel: z.enum(['voice', 'text']),
    call_id: z.string().nullable().meta({ description: 'The call whose opt_out added it (voice)' }),
    conversation_id: z
      .string()
      .nullable()
      .meta({ description: 'The chat conversation whose opt_out added it (text)' }),
    already_listed: z.boolean().meta({ description: 'The number was on the list already' }),
    opted_out_at: ZIsoDateTime,
  },
  'ContactOptedOutEvent',
)

export const ZPingEvent = envelope(
  'ping',
  { agent_id: z.string(), agent_name: z.string(), message: z.string() },
  'PingEvent',
)

/** Every event, with what it says; `ping` is sent only by POST /v1/agents/{id}/webhook/test. */
export const webhookEventSchemas = [
  { schema: ZChatEndedEvent, summary: 'A chat session ended (by the visitor, the agent, or idleness)' },
  { schema: ZCallEndedEvent, summary: 'A voice session or outbound call ended, billed' },
  {
    schema: ZConversationAnalyzedEvent,
    summary: 'Post-call analysis of an ended chat conversation (typed and spoken turns) is ready',
  },
  { schema: ZCallAnalyzedEvent, summary: 'Post-call analysis of an ended call is ready' },
  { schema: ZBatchCompletedEvent, summary: 'Every contact of a batch job reached its end' },
  {
    schema: ZBatchFailedEvent,
    summary:
      'A batch job stopped for good before every contact was called (its agent or number went away, or credits ran out), with the reason',
  },
  {
    schema: ZCallTransferredEvent,
    summary: 'The agent transferred a call to a person (transfer_call), or tried: the result says which',
  },
  {
    schema: ZContactOptedOutEvent,
    summary:
      "A caller or chat visitor asked not to be called again (opt_out): their number is on the organization's do-not-call list",
  },
  { schema: ZPingEvent, summary: 'A test ping (POST /v1/agents/{agentId}/webhook/test)' },
] as const
