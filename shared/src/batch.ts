import { z } from 'zod'
import { ZPageQuery } from './agents.ts'
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
    totalContacts: z.number().int(),
    estimatedCost: z.string(),
    counters: ZBatchCounters,
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
