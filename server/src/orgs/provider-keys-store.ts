import { sql } from 'kysely'
import type { Executor } from '../db/index.ts'

export type ProviderKeyRow = { provider: string; keyBox: string; last4: string; updatedAt: Date }

export const listProviderKeys = (db: Executor, organizationId: string): Promise<ProviderKeyRow[]> =>
  db
    .selectFrom('organization_provider_keys')
    .select(['provider', 'key_box as keyBox', 'last4', 'updated_at as updatedAt'])
    .where('organization_id', '=', organizationId)
    .orderBy('provider')
    .execute()

export const upsertProviderKey = async (
  db: Executor,
  key: { organizationId: string; provider: string; keyBox: string; last4: string },
) => {
  await db
    .insertInto('organization_provider_keys')
    .values({
      organization_id: key.organizationId,
      provider: key.provider,
      key_box: key.keyBox,
      last4: key.last4,
    })
    .onConflict((oc) =>
      oc
        .columns(['organization_id', 'provider'])
        .doUpdateSet({ key_box: key.keyBox, last4: key.last4, updated_at: sql`now()` }),
    )
    .execute()
}

export const deleteProviderKey = async (
  db: Executor,
  { organizationId, provider }: { organizationId: string; provider: string },
) => {
  await db
    .deleteFrom('organization_provider_keys')
    .where('organization_id', '=', organizationId)
    .where('provider', '=', provider)
    .execute()
}
