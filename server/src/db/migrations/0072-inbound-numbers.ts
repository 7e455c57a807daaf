import type { Kysely } from 'kysely'

/**
 * A phone number that answers calls: its inbound agent, and the LiveKit SIP inbound trunk and
 * dispatch rule Parley made for it (ids kept to update, repair and delete them), with when they
 * were last found in step and what went wrong last.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('phone_numbers')
    .addColumn('inbound_agent_id', 'text')
    .addColumn('livekit_inbound_trunk_id', 'text')
    .addColumn('livekit_dispatch_rule_id', 'text')
    .addColumn('inbound_synced_at', 'timestamptz')
    .addColumn('inbound_sync_error', 'text')
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('phone_numbers')
    .dropColumn('inbound_agent_id')
    .dropColumn('livekit_inbound_trunk_id')
    .dropColumn('livekit_dispatch_rule_id')
    .dropColumn('inbound_synced_at')
    .dropColumn('inbound_sync_error')
    .execute()
}
