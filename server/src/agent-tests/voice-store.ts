import { sql } from 'kysely'
import type { Executor } from '../db/index.ts'

/**
 * The claims of a voice run's cases: a worker holds a case for a lease; reported, the claim goes;
 * swept after its lease, it stays (inactive) so the case's attempts are counted.
 */

export type ClaimRow = {
  runId: string
  testId: string
  claimId: string
  leaseUntil: Date
  attempts: number
  active: boolean
  holdId: string | null
  liveAgentId: string
  costMicros: number
}

type ClaimRecord = {
  run_id: string
  test_id: string
  claim_id: string
  lease_until: Date
  attempts: number
  active: boolean
  hold_id: string | null
  live_agent_id: string
  cost_micros: string | number
}

const toClaim = (row: ClaimRecord): ClaimRow => ({
  runId: row.run_id,
  testId: row.test_id,
  claimId: row.claim_id,
  leaseUntil: row.lease_until,
  attempts: row.attempts,
  active: row.active,
  holdId: row.hold_id,
  liveAgentId: row.live_agent_id,
  costMicros: Number(row.cost_micros),
})

/**
 * The cases a worker could take now, oldest run first: a voice run still queued or running, a
 * test of it with no result yet and no live claim. At most `limit`.
 */
export const claimableCases = async (db: Executor, { limit }: { limit: number }) => {
  const { rows } = await sql<{ run_id: string; test_id: string }>`
    select r.id as run_id, t.test_id
    from agent_test_runs r
    cross join lateral jsonb_array_elements_text(r.test_ids) with ordinality as t(test_id, position)
    where r.runner = 'voice_worker' and r.status in ('queued', 'running')
      and not (r.results @> jsonb_build_array(jsonb_build_object('testId', t.test_id)))
      and not exists (
        select 1 from agent_test_case_claims c
        where c.run_id = r.id and c.test_id = t.test_id and c.active
      )
    order by r.created_at, r.id, t.position
    limit ${limit}
  `.execute(db)
  return rows.map((row) => ({ runId: row.run_id, testId: row.test_id }))
}

/**
 * Takes a case for `claimId` until `leaseUntil`: a case never claimed, or whose last claim was
 * swept (its attempts counted on). Null when another worker holds it: one claim a case at a time.
 */
export const takeCase = async (
  db: Executor,
  claim: { runId: string; testId: string; claimId: string; leaseUntil: Date; liveAgentId: string },
) => {
  const row = await db
    .insertInto('agent_test_case_claims')
    .values({
      run_id: claim.runId,
      test_id: claim.testId,
      claim_id: claim.claimId,
      lease_until: claim.leaseUntil,
      live_agent_id: claim.liveAgentId,
    })
    .onConflict((oc) =>
      oc
        .columns(['run_id', 'test_id'])
        .doUpdateSet({
          claim_id: claim.claimId,
          lease_until: claim.leaseUntil,
          live_agent_id: claim.liveAgentId,
          active: true,
          hold_id: null,
          cost_micros: 0,
          attempts: sql`agent_test_case_claims.attempts + 1`,
        })
        .where('agent_test_case_claims.active', '=', false),
    )
    .returningAll()
    .executeTakeFirst()
  return row ? toClaim(row) : null
}

export const setClaimHold = async (
  db: Executor,
  { claimId, holdId }: { claimId: string; holdId: string },
) => {
  await db
    .updateTable('agent_test_case_claims')
    .set({ hold_id: holdId })
    .where('claim_id', '=', claimId)
    .execute()
}

/** The live claim of a case of the run, by its id (null: swept, reported, or another's). */
export const findClaim = async (
  db: Executor,
  { runId, testId, claimId }: { runId: string; testId: string; claimId: string },
) => {
  const row = await db
    .selectFrom('agent_test_case_claims')
    .selectAll()
    .where('run_id', '=', runId)
    .where('test_id', '=', testId)
    .where('claim_id', '=', claimId)
    .where('active', '=', true)
    .executeTakeFirst()
  return row ? toClaim(row) : null
}

export const addClaimCost = async (
  db: Executor,
  { claimId, costMicros }: { claimId: string; costMicros: number },
) => {
  await db
    .updateTable('agent_test_case_claims')
    .set({ cost_micros: sql`cost_micros + ${costMicros}` })
    .where('claim_id', '=', claimId)
    .execute()
}

export const setLiveAgent = async (
  db: Executor,
  { claimId, agentId }: { claimId: string; agentId: string },
) => {
  await db
    .updateTable('agent_test_case_claims')
    .set({ live_agent_id: agentId })
    .where('claim_id', '=', claimId)
    .execute()
}

/** Ends a live claim (its case reported); false when it was no longer live (swept meanwhile). */
export const releaseClaim = async (db: Executor, claimId: string) => {
  const removed = await db
    .deleteFrom('agent_test_case_claims')
    .where('claim_id', '=', claimId)
    .where('active', '=', true)
    .returning('claim_id')
    .execute()
  return removed.length === 1
}

/** Live claims whose lease ran out before `now`: their workers went away. */
export const expiredClaims = async (db: Executor, now: Date) =>
  (
    await db
      .selectFrom('agent_test_case_claims')
      .selectAll()
      .where('active', '=', true)
      .where('lease_until', '<', now)
      .execute()
  ).map(toClaim)

/** A swept claim: the case may be claimed again (false: it was reported or swept meanwhile). */
export const lapseClaim = async (db: Executor, claimId: string) => {
  const result = await db
    .updateTable('agent_test_case_claims')
    .set({ active: false, hold_id: null })
    .where('claim_id', '=', claimId)
    .where('active', '=', true)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** A run's first claim: queued becomes running. */
export const markRunning = async (db: Executor, runId: string) => {
  await db
    .updateTable('agent_test_runs')
    .set({ status: 'running' })
    .where('id', '=', runId)
    .where('status', '=', 'queued')
    .execute()
}

/** Once every case has its result, the run ends: failed when one did not pass. */
export const finishIfDone = async (db: Executor, runId: string) => {
  await db
    .updateTable('agent_test_runs')
    .set({
      status: sql`case when failed > 0 then 'failed' else 'passed' end`,
      finished_at: sql`now()`,
    })
    .where('id', '=', runId)
    .where('status', '=', 'running')
    .where(sql<boolean>`done >= total`)
    .execute()
}

/** Voice runs no worker took since `before` end as `error` with `reason`; answers their ids. */
export const endUnclaimedRuns = async (db: Executor, { before, reason }: { before: Date; reason: string }) =>
  (
    await db
      .updateTable('agent_test_runs')
      .set({ status: 'error', error: reason, finished_at: sql`now()` })
      .where('runner', '=', 'voice_worker')
      .where('status', '=', 'queued')
      .where('created_at', '<', before)
      .returning('id')
      .execute()
  ).map((row) => row.id)
