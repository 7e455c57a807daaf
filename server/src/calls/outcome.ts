import { type AmdVerdict, type CallOutcome, callOutcomes } from '@parley/shared'

/**
 * How a call ended from the caller's side, decided in one place from what closed it: the close's
 * reason (a dial's result, the worker's end reason, the server's own) and status. A call closes
 * once (the first close wins, store.markCallsClosed), so a later webhook (room_finished,
 * participant_left) never overwrites the outcome of a close that came first; a worker's decisive
 * end that arrives after such a webhook refines it (refinableReasons).
 */

/**
 * A close's reason that names its outcome as it is: every outcome but the two a close decides by
 * its status (`completed`, `failed`).
 */
const sameAsReason = new Set<string>(
  callOutcomes.filter((outcome) => outcome !== 'completed' && outcome !== 'failed'),
)

/** Reasons that say the call failed before or instead of a conversation. */
const failedReasons = new Set<string>([
  'agent_error',
  'dispatch_failed',
  'dial_result_lost',
  'claim_released',
])

export const outcomeOfClose = ({
  reason,
  status,
}: {
  reason: string
  status: 'ended' | 'failed'
}): CallOutcome => {
  if (sameAsReason.has(reason)) return reason as CallOutcome
  if (failedReasons.has(reason) || status === 'failed') return 'failed'
  // agent_ended, inactivity, participant_left, room_finished, ended_by_request, key_revoked, …
  return 'completed'
}

/**
 * The closes that only report that the room emptied (LiveKit's webhooks): they know nothing of
 * who answered. A worker's end with a decisive reason that arrives after one of them refines the
 * call's `completed` into what the worker saw (a voicemail box that hung up first, say).
 */
export const refinableReasons = ['room_finished', 'participant_left'] as const

/** The worker's end reasons that decide an outcome a webhook's close cannot know. */
export const decisiveWorkerReasons = new Set<string>([
  'voicemail_left',
  'voicemail_hung_up',
  'phone_menu',
  'opted_out',
])

export type CloseDetails = { sipStatus?: number | null; amdVerdict?: AmdVerdict | null }
