import { z } from 'zod'
import { ZAmdVerdict } from './agent-worker.ts'
import { ZPageQuery } from './agents.ts'
import { ZIsoDateTime, ZPagination } from './common.ts'
import { recordFilters, ZAnalysis } from './conversations.ts'

export const callStatuses = ['active', 'ended', 'failed'] as const
export const ZCallStatus = z.enum(callStatuses)
export type CallStatus = z.infer<typeof ZCallStatus>

/**
 * How a call ended, from the caller's side: what a campaign's retry policy, the exports and the
 * analytics go by. Phone calls carry the SIP status beside it where there is one.
 */
export const callOutcomes = [
  'completed',
  'voicemail_left',
  'voicemail_hung_up',
  'no_answer',
  'busy',
  'rejected',
  'failed',
  'phone_menu',
  'opted_out',
  'transferred',
  'agent_unavailable',
] as const
export const ZCallOutcome = z.enum(callOutcomes)
export type CallOutcome = z.infer<typeof ZCallOutcome>

/** A voice session (`web`), a call Parley placed (`outbound`) or a call to one of its numbers (`inbound`). */
export const ZCall = z
  .object({
    id: z.string(),
    agentId: z.string(),
    userId: z.string().nullable(),
    roomName: z.string(),
    architecture: z.enum(['pipeline', 'realtime']),
    direction: z.enum(['web', 'outbound', 'inbound']),
    status: ZCallStatus,
    startedAt: ZIsoDateTime,
    endedAt: ZIsoDateTime.nullable(),
    durationSeconds: z.number().int().nullable(),
    costUsd: z.number(),
    endReason: z.string().nullable(),
    outcome: ZCallOutcome.nullable().meta({
      description: 'How the call ended from the caller’s side; null while it is active',
    }),
    sipStatus: z.number().int().nullable().meta({
      description: 'The SIP final status of an unanswered dial (486 busy, 603 declined, …)',
    }),
    amdVerdict: ZAmdVerdict.nullable().meta({
      description: 'What answering-machine detection decided on an outbound call, when it ran',
    }),
    phoneNumber: z.string().nullable().meta({
      description: 'Phone calls: the person’s number (the callee, or the caller of an inbound call)',
    }),
    calledNumber: z.string().nullable().meta({
      description: 'Inbound calls: the organization’s number the caller rang',
    }),
    batchJobId: z.string().nullable(),
    batchContactId: z.string().nullable(),
    conversationId: z.string().nullable().meta({
      description: 'The chat conversation this call continued, when the visitor switched from typing',
    }),
    analysis: ZAnalysis.nullable(),
    analysisStatus: z.enum(['analyzed', 'skipped']).nullable().meta({
      description:
        "analyzed: analysis holds the model's analysis; skipped: no model could analyse the call (analysisError says why); null: none asked for or not yet",
    }),
    analysisError: z.string().nullable().meta({
      description: 'Why the call has no analysis (skipped): no model, no provider key, a failed request',
    }),
    liveAgentId: z
      .string()
      .meta({ description: 'The agent answering now (after a handoff); agentId before any' }),
    createdAt: ZIsoDateTime,
  })
  .meta({ id: 'Call' })
export type Call = z.infer<typeof ZCall>

export const callTransferStatuses = ['dialing', 'transferred', 'no_answer', 'declined', 'failed'] as const

/** A transfer of the call to a person (the agent's transfer_call). */
export const ZCallTransfer = z
  .object({
    id: z.string(),
    agentId: z.string().meta({ description: 'The agent that transferred the call' }),
    destinationName: z.string(),
    destination: z.string().meta({ description: 'The E.164 number or SIP URI called' }),
    mode: z.enum(['cold', 'warm']),
    method: z.enum(['refer', 'dial']).meta({
      description:
        'refer: the phone caller was handed over by SIP REFER; dial: the person was dialled into the call',
    }),
    status: z.enum(callTransferStatuses).meta({
      description: 'dialing while a warm transfer briefs the person; then its result',
    }),
    sipStatus: z.number().int().nullable().meta({ description: 'The SIP status of a failed attempt' }),
    createdAt: ZIsoDateTime,
    finishedAt: ZIsoDateTime.nullable(),
  })
  .meta({ id: 'CallTransfer' })
export type CallTransfer = z.infer<typeof ZCallTransfer>

export const ZTranscriptRole = z.enum(['user', 'assistant'])

export const ZCallTranscriptLine = z
  .object({
    position: z.number().int(),
    role: ZTranscriptRole,
    content: z.string(),
    spokenAt: ZIsoDateTime,
    interrupted: z.boolean().meta({
      description: 'The caller spoke over the agent and cut this turn off: content is what was said before',
    }),
  })
  .meta({ id: 'CallTranscriptLine' })
export type CallTranscriptLine = z.infer<typeof ZCallTranscriptLine>

/**
 * GET /v1/calls: newest first, by page (page, limit) or by cursor (the nextCursor of the previous
 * answer; steady while calls are added), narrowed by any of the filters.
 */
export const ZListCallsQuery = ZPageQuery.extend({
  cursor: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: 'The nextCursor of the previous page; not with page' }),
  agentId: z.string().min(1).max(100).optional(),
  status: ZCallStatus.optional(),
  direction: z.enum(['web', 'outbound', 'inbound']).optional(),
  batchJobId: z.string().min(1).max(100).optional(),
  conversationId: z.string().min(1).max(100).optional(),
  phoneNumber: z.string().min(1).max(32).optional(),
  outcome: ZCallOutcome.optional(),
  ...recordFilters('the call’s transcript'),
})
export type ListCallsQuery = z.infer<typeof ZListCallsQuery>

export const ZCallIdParams = z.object({ callId: z.string().min(1).max(100) })

export const ZCallList = z
  .object({
    success: z.literal(true),
    data: z.array(ZCall),
    pagination: ZPagination.meta({ description: 'By page; total counts every call the filters match' }),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as cursor for the next page; null: last page' }),
  })
  .meta({ id: 'CallList' })

/** A tool the voice agent called, or a handoff it made; shown with the call as chat shows a reply's. */
export const ZCallToolCall = z
  .object({
    kind: z.enum(['function', 'end_call', 'handoff', 'unknown']),
    name: z.string().min(1).max(100),
    arguments: z.unknown(),
    status: z.enum(['completed', 'failed']),
    targetAgentId: z
      .string()
      .nullable()
      .meta({ description: 'A handoff: the agent that answered from then on' }),
    createdAt: ZIsoDateTime,
  })
  .meta({ id: 'CallToolCall' })

export const ZCallDetail = z
  .object({
    success: z.literal(true),
    data: ZCall.extend({
      transcript: z.array(ZCallTranscriptLine),
      transfers: z.array(ZCallTransfer).meta({ description: 'Transfers to a person, oldest first' }),
      toolCalls: z
        .array(ZCallToolCall)
        .meta({ description: 'The tools the agent called and its handoffs, in order' }),
    }),
  })
  .meta({ id: 'CallDetail' })
export type CallDetail = z.infer<typeof ZCallDetail>

/** The worker's name for a line or a tool call, unique within its call. */
const workerItemId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, _ or -')
  .meta({ description: 'Unique within the call: a retried batch stores an item with a known id once' })

/**
 * The voice worker's transcript lines, appended in order after those already stored, and the tool
 * calls made meanwhile. Items with an id already stored for the call are skipped.
 */
export const ZAppendTranscript = z
  .object({
    lines: z
      .array(
        z
          .object({
            id: workerItemId.optional(),
            role: ZTranscriptRole,
            content: z.string().trim().min(1).max(10_000),
            spokenAt: z.iso.datetime({ offset: true }).optional().meta({ description: 'Defaults to now' }),
            interrupted: z
              .boolean()
              .optional()
              .meta({ description: "The caller cut the agent's turn off; false when absent" }),
          })
          .strict(),
      )
      .max(200)
      .default([]),
    toolCalls: z
      .array(
        z
          .object({
            id: workerItemId,
            kind: z.enum(['function', 'end_call', 'handoff']),
            name: z.string().min(1).max(100),
            arguments: z
              .record(z.string(), z.unknown())
              .refine((value) => JSON.stringify(value).length <= 10_000, 'at most 10000 characters of JSON'),
            status: z.enum(['completed', 'failed']),
            targetAgentId: z.string().min(1).max(64).nullable().default(null),
            calledAt: z.iso.datetime({ offset: true }).optional().meta({ description: 'Defaults to now' }),
          })
          .strict(),
      )
      .max(50)
      .default([]),
  })
  .strict()
  .refine((body) => body.lines.length + body.toolCalls.length > 0, 'give at least one line or tool call')
  .meta({ id: 'AppendCallTranscriptRequest' })
export type AppendTranscript = z.infer<typeof ZAppendTranscript>
/** What a worker sends (lines and tool calls may be left out). */
export type AppendTranscriptBody = z.input<typeof ZAppendTranscript>

export const ZTranscriptAppended = z
  .object({
    success: z.literal(true),
    data: z.object({ appended: z.number().int(), total: z.number().int() }),
  })
  .meta({ id: 'CallTranscriptAppended' })

export const ZLiveKitWebhookAck = z.object({ received: z.literal(true) }).meta({ id: 'LiveKitWebhookAck' })

/** POST /v1/calls/{callId}/transfer's answer (worker token). */
export const ZCallTransferResponse = z
  .object({
    success: z.literal(true),
    data: z.object({
      transfer: ZCallTransfer,
      /** A warm transfer: the line the worker dials the person on; null for a cold one. */
      line: z
        .object({
          sipTrunkId: z.string(),
          fromNumber: z.string(),
          to: z.string(),
          ringingTimeoutSeconds: z.number().int(),
        })
        .nullable(),
    }),
  })
  .meta({ id: 'WorkerCallTransfer' })
export type CallTransferResponse = z.infer<typeof ZCallTransferResponse>

const ZVariableValue = z.union([z.string().max(2000), z.number(), z.boolean()])

/**
 * POST /v1/calls: one outbound call now, from one of the organization's numbers. The agent is the
 * number's outbound agent unless `agentId` names another voice agent of the organization;
 * `variables` fill the agent's `{{name}}` placeholders, as a batch contact's fields do; `metadata`
 * is the caller's own, given back in the call's `queued` event.
 */
export const ZCreateCall = z
  .strictObject({
    fromPhoneNumberId: z.string().min(1).max(100),
    to: z
      .string()
      .regex(/^\+[1-9]\d{1,14}$/, 'must be E.164: a leading + and digits only, e.g. +14155550123')
      .meta({ example: '+14155550123' }),
    agentId: z.string().min(1).max(100).optional(),
    variables: z
      .record(z.string().min(1).max(100), ZVariableValue)
      .refine((value) => Object.keys(value).length <= 50, 'at most 50 variables')
      .optional(),
    metadata: z
      .record(z.string().min(1).max(100), z.unknown())
      .refine((value) => JSON.stringify(value).length <= 4096, 'metadata must be at most 4 KiB as JSON')
      .optional(),
  })
  .meta({ id: 'CreateCallRequest' })
export type CreateCall = z.infer<typeof ZCreateCall>

export const ZCallResponse = z.object({ success: z.literal(true), data: ZCall }).meta({ id: 'CallResponse' })
export type CallResponse = z.infer<typeof ZCallResponse>

export const callEventTypes = [
  'queued',
  'dialing',
  'ringing',
  'answered',
  'transcript',
  'transferred',
  'ended',
] as const
export const ZCallEventType = z.enum(callEventTypes)

export type CallEventType = z.infer<typeof ZCallEventType>

/**
 * One event of GET /v1/calls/{id}/events (the SSE `event:` line is `type`, the `id:` line is
 * `id`). `queued` carries the request's metadata; `dialing`, `ringing` and `answered` the callee's
 * progress (each once, in order; `ringing` and an early `answered` come from the worker's view of
 * LiveKit's `sip.callStatus`); `transcript` a line (role, content); `transferred` a transfer to a
 * person; `ended` the call's status, its final outcome (end reason) and the SIP status of an
 * unanswered dial.
 */
export const ZCallEvent = z
  .object({
    id: z.string(),
    type: ZCallEventType,
    callId: z.string(),
    at: z.string(),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({
    id: 'CallEvent',
    description:
      'dialing, ringing and answered: the callee’s progress, once each and in order; ended: the final outcome (sent once, after the agent worker had its say on how the call ended)',
  })
export type CallEvent = z.infer<typeof ZCallEvent>
