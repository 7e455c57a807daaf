import type { Executor } from '../db/index.ts'

export const findSummary = async (
  db: Executor,
  { organizationId, identity }: { organizationId: string; identity: string },
) =>
  (
    await db
      .selectFrom('memory_summaries')
      .select('summary')
      .where('organization_id', '=', organizationId)
      .where('identity', '=', identity)
      .executeTakeFirst()
  )?.summary

export const saveSummary = async (
  db: Executor,
  { organizationId, identity, summary }: { organizationId: string; identity: string; summary: string },
) => {
  await db
    .insertInto('memory_summaries')
    .values({ organization_id: organizationId, identity, summary, updated_at: new Date() })
    .onConflict((oc) =>
      oc.columns(['organization_id', 'identity']).doUpdateSet({ summary, updated_at: new Date() }),
    )
    .execute()
}
