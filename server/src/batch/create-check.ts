import type { BatchContactInput, BatchCreateFields, BatchSkippedRow } from '@parley/shared'
import { batchLimits } from '@parley/shared'
import { findAgent } from '../agents/index.ts'
import { getBalanceMicros } from '../billing/index.ts'
import { voiceRateFor } from '../calls/index.ts'
import type { AppContext } from '../context.ts'
import { listedAmong } from '../do-not-call/index.ts'
import { AppError } from '../http/app-error.ts'
import { findPhoneNumber } from '../phone-numbers/index.ts'
import {
  keepValidCsvRows,
  removeDuplicates,
  requireValidJsonContacts,
  tooManyContacts,
  type ValidContact,
} from './create-contacts.ts'
import { readCsvContacts } from './create-csv.ts'
import { requireTimezone, resolveScheduledStart } from './create-schedule.ts'
import { estimateCostMicros, formatUsd } from './estimate.ts'

/** CSV mode: the records parsed as the upload arrived (parseCsvStream); JSON mode: the contacts. */
export type ContactSource =
  | { kind: 'csv'; records: string[][] }
  | { kind: 'json'; contacts: BatchContactInput[] }

/**
 * Step 1: phone validation. CSV skips bad rows and lists them with why; JSON refuses the first
 * bad phone.
 */
const readValidContacts = async (
  source: ContactSource,
): Promise<{ contacts: ValidContact[]; skipped: BatchSkippedRow[] }> => {
  if (source.kind === 'json') return { contacts: requireValidJsonContacts(source.contacts), skipped: [] }
  const { rows, malformedRows } = await readCsvContacts(source.records)
  const { valid, invalid } = await keepValidCsvRows(rows)
  const malformed = malformedRows.map(
    ({ row, phone }): BatchSkippedRow => ({ row, reason: 'wrong_column_count', phone, duplicateOfRow: null }),
  )
  return { contacts: valid, skipped: [...malformed, ...invalid].sort((a, b) => a.row - b.row) }
}

/** Steps 2–4: the number (404 when unknown here), its outbound agent, which must be a voice agent. */
const resolveNumberAndAgent = async (ctx: AppContext, organizationId: string, phoneNumberId: string) => {
  const phoneNumber = await findPhoneNumber(ctx.db, { organizationId, id: phoneNumberId })
  if (!phoneNumber) throw AppError.notFound('phone number')
  const agent = phoneNumber.outboundAgentId
    ? await findAgent(ctx.db, { organizationId, id: phoneNumber.outboundAgentId })
    : undefined
  if (!agent)
    throw AppError.badRequest(
      `Phone number ${phoneNumber.number} has no outbound agent assigned`,
      'no_outbound_agent',
    )
  if (agent.agentArchitecture === 'text')
    throw AppError.badRequest(
      `The outbound agent of ${phoneNumber.number} is a text agent; batch calls need a pipeline or realtime agent`,
      'no_outbound_agent',
    )
  if (!agent.active) throw AppError.agentInactive()
  // A voice agent from here on: the text architecture was refused above.
  const { agentArchitecture, model, stt, tts, realtimeProvider } = agent
  return {
    phoneNumber,
    agent: { id: agent.id, name: agent.name, agentArchitecture },
    parts: { agentArchitecture, model, stt, tts, realtimeProvider },
  }
}

export type CheckedBatchRequest = Awaited<ReturnType<typeof checkBatchRequest>>

/**
 * Steps 1–6 of the spec's processing order for POST /batch/create, shared with POST
 * /batch/preview so the two can never disagree: the schedule, the contacts (with every skipped
 * row and why), the number and its agent, duplicates, the contact limit, the estimate and the
 * balance it is held against. Create refuses an estimate the balance does not cover
 * (requireCredits); the preview reports it.
 */
export const checkBatchRequest = async (
  ctx: AppContext,
  organizationId: string,
  { fields, source }: { fields: BatchCreateFields; source: ContactSource },
) => {
  const timezone = requireTimezone(fields.timezone)
  const scheduledStartTime = resolveScheduledStart({
    text: fields.scheduledStartTime,
    timezone,
    now: ctx.clock.now(),
  })

  const { contacts, skipped } = await readValidContacts(source)
  if (contacts.length === 0)
    throw AppError.badRequest(
      skipped.length
        ? `No valid contacts: all ${skipped.length} rows were invalid`
        : 'No valid contacts were given',
      'no_valid_contacts',
    )
  const { phoneNumber, agent, parts } = await resolveNumberAndAgent(
    ctx,
    organizationId,
    fields.fromPhoneNumberId,
  )
  const { unique: all, duplicates } = removeDuplicates(contacts)
  if (all.length > batchLimits.maxContacts)
    throw tooManyContacts(`${all.length} unique valid contacts were given`)
  // Numbers on the organization's do-not-call list are left out and counted.
  const listed = await listedAmong(ctx.db, { organizationId, phoneNumbers: all.map((c) => c.phone) })
  const unique = all.filter((contact) => !listed.has(contact.phone))
  const doNotCall = all
    .filter((contact) => listed.has(contact.phone))
    .map(({ row, phone }): BatchSkippedRow => ({ row, reason: 'do_not_call', phone, duplicateOfRow: null }))
  if (unique.length === 0)
    throw AppError.badRequest(
      `No valid contacts: all ${all.length} numbers are on the do-not-call list`,
      'no_valid_contacts',
    )
  // The agent's own price per minute (its models, the organization's keys), as its calls are billed.
  const microsPerMinute = await voiceRateFor(ctx, { agent: parts, organizationId })
  const costMicros = estimateCostMicros(unique.length, microsPerMinute)
  const balanceMicros = await getBalanceMicros(ctx.db, organizationId)

  return {
    timezone,
    scheduledStartTime,
    contacts: unique,
    invalid: skipped,
    duplicates,
    doNotCall,
    phoneNumber,
    agent,
    microsPerMinute,
    costMicros,
    balanceMicros,
  }
}

/** Step 6: the balance must cover the estimate (credits are charged per call, not reserved). */
export const hasEnoughCredits = ({ costMicros, balanceMicros }: CheckedBatchRequest) =>
  balanceMicros >= costMicros

export const requireCredits = (checked: CheckedBatchRequest) => {
  const { costMicros, balanceMicros } = checked
  if (!hasEnoughCredits(checked))
    throw AppError.badRequest(
      `Insufficient credits: the estimated cost is ${formatUsd(costMicros)} USD and the balance is ${formatUsd(balanceMicros)} USD`,
      'insufficient_credits',
    )
}
