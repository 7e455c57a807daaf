import { z } from 'zod'
import { ZAgentArchitecture, ZPageQuery } from './agents.ts'
import { ZCallOutcome } from './calls.ts'
import { ZIsoDateTime, ZPagination } from './common.ts'

export const batchJobStatuses = [
  'pending',
  'scheduled',
  'running',
  'paused',
  'completed',
  'failed',
  'cancelled',
] as const
export const ZBatchJobStatus = z.enum(batchJobStatuses)
export type BatchJobStatus = z.infer<typeof ZBatchJobStatus>

export const batchContactStatuses = ['pending', 'in_progress', 'completed', 'failed', 'cancelled'] as const
export const ZBatchContactStatus = z.enum(batchContactStatuses)
export type BatchContactStatus = z.infer<typeof ZBatchContactStatus>

/** Limits of the spec's "Limits" table. */
export const batchLimits = {
  maxContacts: 10_000,
  maxCsvBytes: 10 * 1024 * 1024,
  concurrentCallLimit: { min: 1, max: 50, default: 5 },
  maxAttempts: { min: 1, max: 10, default: 3 },
  name: 200,
  description: 1000,
} as const

export const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const
export const ZWeekday = z.enum(weekdays)
export type Weekday = z.infer<typeof ZWeekday>

const ZClockTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM (24-hour)')

/**
 * Hours in which a contact may be dialled, read in the contact's own time zone. `end` before
 * `start` is a window across midnight (22:00–06:00); `days` name the day the window opens.
 */
export const ZCallingWindow = z
  .object({
    start: ZClockTime,
    end: ZClockTime,
    days: z
      .array(ZWeekday)
      .min(1, 'days must name at least one day')
      .max(7)
      .refine((days) => new Set(days).size === days.length, 'days must not repeat'),
  })
  .refine((window) => window.start !== window.end, 'callingWindow start and end must differ')
  .meta({ id: 'CallingWindow' })
export type CallingWindow = z.infer<typeof ZCallingWindow>

/**
 * How many more tries a contact gets after a try that ended with an outcome, and how long after
 * it (then inside the calling window, in the contact's zone). `voicemail` covers voicemail_left
 * and voicemail_hung_up. Completed, transferred, opted-out and rejected calls are never retried;
 * failed dials and calls no agent took follow the back-off. maxAttempts caps every contact's tries.
 */
export const retryableOutcomes = ['busy', 'no_answer', 'voicemail', 'phone_menu'] as const
export type RetryableOutcome = (typeof retryableOutcomes)[number]

export const ZRetryRule = z
  .strictObject({
    tries: z.number().int().min(0).max(10).meta({ description: 'More tries after this outcome (0: none)' }),
    afterMinutes: z
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 60)
      .meta({ description: 'Wait this long after the try before the next one' }),
  })
  .meta({ id: 'RetryRule' })
export type RetryRule = z.infer<typeof ZRetryRule>

/** Busy: 2 more tries after 10 minutes; no answer: 2 after 2 hours; voicemail: 1 the next day. */
export const defaultRetryPolicy: Record<RetryableOutcome, RetryRule> = {
  busy: { tries: 2, afterMinutes: 10 },
  no_answer: { tries: 2, afterMinutes: 120 },
  voicemail: { tries: 1, afterMinutes: 24 * 60 },
  phone_menu: { tries: 0, afterMinutes: 24 * 60 },
}

export const ZRetryPolicy = z
  .strictObject({
    busy: ZRetryRule.optional(),
    no_answer: ZRetryRule.optional(),
    voicemail: ZRetryRule.optional(),
    phone_menu: ZRetryRule.optional(),
  })
  .meta({
    id: 'RetryPolicy',
    description: 'Per outcome, how many more tries and after how long; an outcome left out keeps its default',
  })
export type RetryPolicy = z.infer<typeof ZRetryPolicy>

/** The policy a job dials by: the defaults with the job's own rules over them. */
export const resolveRetryPolicy = (
  policy: RetryPolicy | null | undefined,
): Record<RetryableOutcome, RetryRule> => ({
  ...defaultRetryPolicy,
  ...Object.fromEntries(Object.entries(policy ?? {}).filter(([, rule]) => rule !== undefined)),
})

/** A multipart form sends every field as text: numbers are coerced, the window arrives as JSON. */
const fromJsonText = (value: unknown) => {
  if (typeof value !== 'string') return value
  try {
    return JSON.parse(value) as unknown
  } catch {
    return value
  }
}
const emptyAsAbsent = (value: unknown) => (value === '' ? undefined : value)

/** The fields both request modes share (spec "Batch calling"). */
export const ZBatchCreateFields = z.object({
  fromPhoneNumberId: z.string().trim().min(1, 'fromPhoneNumberId is required').max(100),
  name: z
    .string()
    .trim()
    .min(1, 'name is required')
    .max(batchLimits.name, `name must be at most ${batchLimits.name} characters`),
  description: z.preprocess(
    emptyAsAbsent,
    z
      .string()
      .max(batchLimits.description, `description must be at most ${batchLimits.description} characters`)
      .nullable()
      .optional(),
  ),
  concurrentCallLimit: z.preprocess(
    emptyAsAbsent,
    z.coerce
      .number()
      .int('concurrentCallLimit must be a whole number')
      .min(1, 'concurrentCallLimit must be between 1 and 50')
      .max(50, 'concurrentCallLimit must be between 1 and 50')
      .default(batchLimits.concurrentCallLimit.default),
  ),
  maxAttempts: z.preprocess(
    emptyAsAbsent,
    z.coerce
      .number()
      .int('maxAttempts must be a whole number')
      .min(1, 'maxAttempts must be between 1 and 10')
      .max(10, 'maxAttempts must be between 1 and 10')
      .default(batchLimits.maxAttempts.default),
  ),
  scheduledStartTime: z.preprocess(
    emptyAsAbsent,
    z.string().max(64).nullable().optional().meta({
      description: 'ISO 8601; without an offset it is read in `timezone`; must not be in the past',
    }),
  ),
  timezone: z.preprocess(
    emptyAsAbsent,
    z.string().max(64).default('UTC').meta({ description: 'IANA time zone, e.g. America/New_York' }),
  ),
  callingWindow: z.preprocess(fromJsonText, ZCallingWindow.nullable().optional()),
  retryPolicy: z.preprocess(fromJsonText, ZRetryPolicy.optional()),
})
export type BatchCreateFields = z.infer<typeof ZBatchCreateFields>

/**
 * A contact as given: `phone` (checked by the service so a bad one answers
 * invalid_phone_format naming its index), optional `name`, and any other fields, kept as given.
 */
export const ZBatchContactInput = z
  .object({ phone: z.unknown().optional(), name: z.unknown().optional() })
  .catchall(z.unknown())
  .meta({ id: 'BatchContactInput' })
export type BatchContactInput = z.infer<typeof ZBatchContactInput>

export const ZBatchCreateJson = ZBatchCreateFields.extend({
  contacts: z.array(ZBatchContactInput),
}).meta({ id: 'BatchCreateRequest' })
export type BatchCreateJson = z.infer<typeof ZBatchCreateJson>

/** The spec's Batch job resource (create response). */
export const ZBatchCreated = z
  .object({
    success: z.literal(true),
    batchJobId: z.string(),
    totalContacts: z.number().int(),
    estimatedDuration: z.string(),
    estimatedCost: z.string().meta({ description: 'USD, e.g. "35.00"' }),
    status: z.enum(['pending', 'scheduled']),
    scheduledStartTime: ZIsoDateTime.nullable(),
    message: z.string(),
    skippedDoNotCall: z
      .number()
      .int()
      .min(0)
      .meta({ description: "Contacts left out: their numbers are on the organization's do-not-call list" }),
  })
  .meta({ id: 'BatchCreated' })
export type BatchCreated = z.infer<typeof ZBatchCreated>

export const ZBatchCounters = z
  .object({
    total: z.number().int(),
    pending: z.number().int(),
    in_progress: z.number().int(),
    completed: z.number().int(),
    failed: z.number().int(),
    cancelled: z.number().int(),
  })
  .meta({ id: 'BatchCounters' })
export type BatchCounters = z.infer<typeof ZBatchCounters>

export const ZBatchJob = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    status: ZBatchJobStatus,
    phoneNumberId: z.string(),
    agentId: z.string(),
    concurrentCallLimit: z.number().int(),
    maxAttempts: z.number().int(),
    scheduledStartTime: ZIsoDateTime.nullable(),
    timezone: z.string(),
    callingWindow: ZCallingWindow.nullable(),
    retryPolicy: z
      .object({ busy: ZRetryRule, no_answer: ZRetryRule, voicemail: ZRetryRule, phone_menu: ZRetryRule })
      .meta({ description: 'The retry policy in force: the defaults with the job’s own rules over them' }),
    totalContacts: z.number().int(),
    estimatedCost: z.string(),
    counters: ZBatchCounters,
    outcomes: z.partialRecord(ZCallOutcome, z.number().int()).meta({
      description: 'The campaign’s finished tries by outcome (completed, voicemail_left, busy, …)',
    }),
    failureReason: z.string().nullable(),
    unknownPlaceholders: z.array(z.string()),
    createdAt: ZIsoDateTime,
    startedAt: ZIsoDateTime.nullable(),
    finishedAt: ZIsoDateTime.nullable(),
    updatedAt: ZIsoDateTime,
  })
  .meta({ id: 'BatchJob' })
export type BatchJob = z.infer<typeof ZBatchJob>

export const ZBatchJobResponse = z
  .object({ success: z.literal(true), data: ZBatchJob })
  .meta({ id: 'BatchJobResponse' })

export const ZListBatchJobsQuery = ZPageQuery.extend({
  status: ZBatchJobStatus.optional(),
})
export type ListBatchJobsQuery = z.infer<typeof ZListBatchJobsQuery>

export const ZBatchJobList = z
  .object({ success: z.literal(true), data: z.array(ZBatchJob), pagination: ZPagination })
  .meta({ id: 'BatchJobList' })

export const ZBatchJobIdParams = z.object({ batchJobId: z.string().min(1).max(100) })

/** One try of a contact: its outcome (`answered` while its call is live), SIP status and times. */
export const ZBatchContactTry = z
  .object({
    attemptNumber: z.number().int(),
    outcome: z.string().nullable().meta({
      description: 'A call outcome, `answered` while the call is live, null while it rings',
      example: 'voicemail_left',
    }),
    sipStatus: z.number().int().nullable(),
    callId: z.string().nullable(),
    startedAt: ZIsoDateTime,
    finishedAt: ZIsoDateTime.nullable(),
  })
  .meta({ id: 'BatchContactTry' })
export type BatchContactTry = z.infer<typeof ZBatchContactTry>

export const ZBatchContact = z
  .object({
    id: z.string(),
    position: z.number().int(),
    phone: z.string(),
    name: z.string().nullable(),
    fields: z.record(z.string(), z.unknown()),
    timeZone: z.string().nullable(),
    status: ZBatchContactStatus,
    attempts: z.number().int(),
    nextAttemptAt: ZIsoDateTime,
    lastError: z.string().nullable(),
    lastOutcome: z.string().nullable(),
    callId: z.string().nullable(),
    tries: z.array(ZBatchContactTry).meta({ description: 'Each try so far, oldest first' }),
    updatedAt: ZIsoDateTime,
  })
  .meta({ id: 'BatchContact' })
export type BatchContact = z.infer<typeof ZBatchContact>

export const ZListBatchContactsQuery = ZPageQuery.extend({
  status: ZBatchContactStatus.optional(),
})
export type ListBatchContactsQuery = z.infer<typeof ZListBatchContactsQuery>

export const ZBatchContactList = z
  .object({ success: z.literal(true), data: z.array(ZBatchContact), pagination: ZPagination })
  .meta({ id: 'BatchContactList' })

/** POST /batch/{id}/retry-failed: the job after the re-queue and how many contacts wait again. */
export const ZBatchRetryFailedResponse = z
  .object({ success: z.literal(true), data: ZBatchJob, requeued: z.number().int() })
  .meta({ id: 'BatchRetryFailedResponse' })
export type BatchRetryFailedResponse = z.infer<typeof ZBatchRetryFailedResponse>

/**
 * GET /batch/{id}/events: a `progress` event with this body at connect and after every contact
 * change (several quick changes may arrive as one), then `end` with the same body once the job is
 * completed, failed or cancelled, and the stream closes.
 */
export const ZBatchProgressEvent = z
  .object({
    batchJobId: z.string(),
    status: ZBatchJobStatus,
    counters: ZBatchCounters,
    failureReason: z.string().nullable(),
    unknownPlaceholders: z.array(z.string()),
    updatedAt: ZIsoDateTime,
  })
  .meta({ id: 'BatchProgressEvent' })
export type BatchProgressEvent = z.infer<typeof ZBatchProgressEvent>

/**
 * Why a row of the file is not among the contacts: no phone, a phone that is not a valid E.164
 * number, a row whose width differs from the header's, a phone an earlier row already holds, or
 * a phone on the organization's do-not-call list.
 */
export const batchSkipReasons = [
  'missing_phone',
  'invalid_phone',
  'wrong_column_count',
  'duplicate',
  'do_not_call',
] as const
export const ZBatchSkipReason = z.enum(batchSkipReasons)
export type BatchSkipReason = z.infer<typeof ZBatchSkipReason>

/**
 * Where a contact was in the request: in CSV mode its row as a spreadsheet numbers it (the header
 * is row 1, a quoted cell across lines stays in one row, blank lines are no rows); in JSON mode
 * its place in `contacts`, counted from 1.
 */
const ZRowNumber = z.number().int().min(1).meta({ example: 4 })

export const ZBatchSkippedRow = z
  .object({
    row: ZRowNumber,
    reason: ZBatchSkipReason,
    phone: z
      .string()
      .meta({ description: 'The phone cell as given (empty when missing)', example: '415-555-0199' }),
    duplicateOfRow: ZRowNumber.nullable().meta({ description: 'For a duplicate: the row kept', example: 2 }),
  })
  .meta({ id: 'BatchSkippedRow' })
export type BatchSkippedRow = z.infer<typeof ZBatchSkippedRow>

const count = (example: number) => z.number().int().min(0).meta({ example })

/**
 * POST /batch/preview: what POST /batch/create would do with the same request, creating nothing.
 * The same checks run in the same order (one function), so a request the preview accepts is one
 * create accepts, unless the balance, the number or its agent change in between; the one
 * difference is credits: the preview says whether the balance covers the estimate instead of
 * refusing, so the estimate can be seen before credits are added.
 */
export const ZBatchPreview = z
  .object({
    name: z.string(),
    /** Contacts the job would hold: valid, without repeats (create's totalContacts). */
    validContacts: count(248),
    /** The first contacts, in the order they would be dialled, with their custom fields. */
    contacts: z.array(
      z.object({
        row: ZRowNumber,
        phone: z.string(),
        name: z.string().nullable(),
        fields: z.record(z.string(), z.unknown()),
      }),
    ),
    skipped: z.object({
      total: count(3),
      missingPhone: count(0),
      invalidPhone: count(1),
      wrongColumnCount: count(1),
      duplicates: count(1),
      /** Numbers on the organization's do-not-call list (create leaves them out: skippedDoNotCall). */
      doNotCall: count(0),
      /** The first skipped rows, in file order. */
      rows: z.array(ZBatchSkippedRow),
    }),
    estimate: z.object({
      estimatedCost: z.string().meta({ description: 'USD, as create answers it', example: '8.68' }),
      estimatedDuration: z.string(),
      usdPerMinute: z.number().meta({ description: "The agent's architecture's price", example: 0.0175 }),
      minutesPerCall: z.number().meta({ description: 'The length the estimate assumes', example: 2 }),
      balance: z.string().meta({ description: "The organization's credits, USD", example: '25.00' }),
      hasEnoughCredits: z.boolean().meta({ example: true }),
    }),
    schedule: z.object({
      timezone: z.string(),
      scheduledStartTime: ZIsoDateTime.nullable().meta({ description: 'UTC; null: starts at once' }),
      localStartTime: z
        .string()
        .nullable()
        .meta({ description: 'The start as wall-clock time in `timezone`', example: '2026-11-25T09:00' }),
      callingWindow: ZCallingWindow.nullable(),
    }),
    phoneNumber: z.object({ id: z.string(), number: z.string(), label: z.string().nullable() }),
    agent: z.object({ id: z.string(), name: z.string(), agentArchitecture: ZAgentArchitecture }),
    concurrentCallLimit: z.number().int(),
    maxAttempts: z.number().int(),
  })
  .meta({ id: 'BatchPreview' })
export type BatchPreview = z.infer<typeof ZBatchPreview>

export const ZBatchPreviewResponse = z
  .object({ success: z.literal(true), data: ZBatchPreview })
  .meta({ id: 'BatchPreviewResponse' })
export type BatchPreviewResponse = z.infer<typeof ZBatchPreviewResponse>

/** How many contacts and skipped rows a preview lists (the counts cover the whole file). */
export const batchPreviewLimits = { contacts: 20, skippedRows: 100 } as const
