import {
  type BatchCreateFields,
  type BatchPreview,
  type BatchSkippedRow,
  batchPreviewLimits,
} from '@parley/shared'
import { DateTime } from 'luxon'
import type { AppContext } from '../context.ts'
import type { ApiKeyActor } from '../http/types.ts'
import { type ContactSource, checkBatchRequest, hasEnoughCredits } from './create-check.ts'
import { estimateDuration, formatUsd, MINUTES_PER_CALL } from './estimate.ts'

const countOf = (rows: BatchSkippedRow[], reason: BatchSkippedRow['reason']) =>
  rows.filter((row) => row.reason === reason).length

/**
 * POST /batch/preview: create's own checks (checkBatchRequest), answered instead of acted on.
 * Nothing is stored or queued; an error is the one create would answer, but for credits, which
 * the preview reports (hasEnoughCredits) so the estimate shows before the credits are added.
 */
export const previewBatchJob = async (
  ctx: AppContext,
  actor: ApiKeyActor,
  { fields, source }: { fields: BatchCreateFields; source: ContactSource },
): Promise<BatchPreview> => {
  const checked = await checkBatchRequest(ctx, actor.organizationId, { fields, source })
  const skipped = [...checked.invalid, ...checked.duplicates, ...checked.doNotCall].sort(
    (a, b) => a.row - b.row,
  )
  const start = checked.scheduledStartTime
  return {
    name: fields.name,
    validContacts: checked.contacts.length,
    contacts: checked.contacts
      .slice(0, batchPreviewLimits.contacts)
      .map(({ row, phone, name, fields: custom }) => ({ row, phone, name, fields: custom })),
    skipped: {
      total: skipped.length,
      missingPhone: countOf(checked.invalid, 'missing_phone'),
      invalidPhone: countOf(checked.invalid, 'invalid_phone'),
      wrongColumnCount: countOf(checked.invalid, 'wrong_column_count'),
      duplicates: checked.duplicates.length,
      doNotCall: checked.doNotCall.length,
      rows: skipped.slice(0, batchPreviewLimits.skippedRows),
    },
    estimate: {
      estimatedCost: formatUsd(checked.costMicros),
      estimatedDuration: estimateDuration(checked.contacts.length, fields.concurrentCallLimit),
      usdPerMinute: checked.microsPerMinute / 1_000_000,
      minutesPerCall: MINUTES_PER_CALL,
      balance: formatUsd(checked.balanceMicros),
      hasEnoughCredits: hasEnoughCredits(checked),
    },
    schedule: {
      timezone: checked.timezone,
      scheduledStartTime: start?.toISOString() ?? null,
      localStartTime: start
        ? DateTime.fromJSDate(start, { zone: checked.timezone }).toFormat("yyyy-MM-dd'T'HH:mm")
        : null,
      callingWindow: fields.callingWindow ?? null,
    },
    phoneNumber: {
      id: checked.phoneNumber.id,
      number: checked.phoneNumber.number,
      label: checked.phoneNumber.label,
    },
    agent: checked.agent,
    concurrentCallLimit: fields.concurrentCallLimit,
    maxAttempts: fields.maxAttempts,
  }
}
