import { sql } from 'kysely'
import type { Executor } from '../db/index.ts'

export type Scope = { organizationId: string; key: string }

export type IdempotencyRow = {
  requestHash: string
  /** Null while the first request runs. */
  responseStatus: number | null
  /** The JSON text first sent. */
  responseBody: string | null
}

/** Claims the key for this request; false when a row (finished, running or stale) holds it. */
export const claimKey = async (
  db: Executor,
  { organizationId, key, requestHash, expiresAt }: Scope & { requestHash: string; expiresAt: Date },
): Promise<boolean> => {
  const claimed = await db
    .insertInto('idempotency_keys')
    .values({ organization_id: organizationId, key, request_hash: requestHash, expires_at: expiresAt })
    .onConflict((conflict) => conflict.columns(['organization_id', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst()
  return claimed !== undefined
}

/** The row holding the key, unless its 24 h are over. */
export const findLiveKey = (
  db: Executor,
  { organizationId, key }: Scope,
): Promise<IdempotencyRow | undefined> =>
  db
    .selectFrom('idempotency_keys')
    .select([
      'request_hash as requestHash',
      'response_status as responseStatus',
      'response_body as responseBody',
    ])
    .where('organization_id', '=', organizationId)
    .where('key', '=', key)
    .where('expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst()

/** Frees a key whose 24 h are over, or whose first request stopped without an answer long ago. */
export const deleteStale = async (
  db: Executor,
  { organizationId, key, abandonedBefore }: Scope & { abandonedBefore: Date },
) => {
  await db
    .deleteFrom('idempotency_keys')
    .where('organization_id', '=', organizationId)
    .where('key', '=', key)
    .where((eb) =>
      eb.or([
        eb('expires_at', '<=', sql<Date>`now()`),
        eb.and([eb('response_status', 'is', null), eb('created_at', '<', abandonedBefore)]),
      ]),
    )
    .execute()
}

export const saveResponse = async (
  db: Executor,
  { organizationId, key, status, body }: Scope & { status: number; body: string },
) => {
  await db
    .updateTable('idempotency_keys')
    .set({ response_status: status, response_body: body })
    .where('organization_id', '=', organizationId)
    .where('key', '=', key)
    .execute()
}

/** Lets the key be used again after a request that did not succeed. */
export const releaseKey = async (db: Executor, { organizationId, key }: Scope) => {
  await db
    .deleteFrom('idempotency_keys')
    .where('organization_id', '=', organizationId)
    .where('key', '=', key)
    .where('response_status', 'is', null)
    .execute()
}

/** Deletes keys past their 24 h; returns how many went. */
export const purgeExpired = async (db: Executor): Promise<number> => {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('expires_at', '<=', sql<Date>`now()`)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
