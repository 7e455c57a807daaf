import { sql } from 'kysely'
import type { AppContext } from '../../context.ts'
import { listedAmong } from '../../do-not-call/index.ts'
import type * as store from './store.ts'

/** The contact's last error when the dialer skips it: the list changed after the campaign was made. */
export const DO_NOT_CALL_SKIP = 'Skipped: the number is on the do-not-call list'

/**
 * The do-not-call list asked again right before a claim round dials: a number listed after the
 * campaign was created is not dialled. Its claim is undone without a dial (the attempt row goes,
 * as for a claim that never reached LiveKit) and the contact ends `cancelled` with the reason;
 * retry-failed never dials it (it only re-queues failed contacts). Answers the contacts to dial.
 */
export const skipDoNotCall = async (
  ctx: AppContext,
  { organizationId, claimed }: { organizationId: string; claimed: store.ClaimedContact[] },
) => {
  const listed = await listedAmong(ctx.db, { organizationId, phoneNumbers: claimed.map((c) => c.phone) })
  if (listed.size === 0) return claimed
  const skipped = claimed.filter((contact) => listed.has(contact.phone)).map((contact) => contact.attemptId)
  const now = ctx.clock.now()
  await sql`
    with released as (
      delete from batch_attempts
      where id = any(${skipped}::text[]) and call_id is null and finished_at is null
      returning batch_contact_id
    )
    update batch_contacts
    set status = 'cancelled', attempts = greatest(attempts - 1, 0), last_error = ${DO_NOT_CALL_SKIP},
      updated_at = ${now}
    where id in (select batch_contact_id from released) and status = 'in_progress'
  `.execute(ctx.db)
  return claimed.filter((contact) => !listed.has(contact.phone))
}
