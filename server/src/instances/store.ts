import { sql } from 'kysely'
import type { Executor } from '../db/index.ts'

export const registerInstance = async (db: Executor, { id, now }: { id: string; now: Date }) => {
  await db.insertInto('server_instances').values({ id, started_at: now, heartbeat_at: now }).execute()
}

/** Embedded mode has one process: a new start proves every instance before it dead. */
export const forgetOtherInstances = async (db: Executor, id: string) => {
  await db.deleteFrom('server_instances').where('id', '!=', id).execute()
}

/** Writes the heartbeat; a row swept while this instance stalled is written again. */
export const beat = async (db: Executor, { id, now }: { id: string; now: Date }) => {
  await sql`insert into server_instances (id, started_at, heartbeat_at) values (${id}, ${now}, ${now})
    on conflict (id) do update set heartbeat_at = excluded.heartbeat_at`.execute(db)
}

export const removeInstance = async (db: Executor, id: string) => {
  await db.deleteFrom('server_instances').where('id', '=', id).execute()
}

/** Instances silent since `aliveAfter` are forgotten (their claims are recovered by their absence). */
export const forgetDeadInstances = async (db: Executor, aliveAfter: Date) => {
  await db.deleteFrom('server_instances').where('heartbeat_at', '<', aliveAfter).execute()
}

/** SQL true when the instance id given is not alive after `aliveAfter` (no row or a stale one). */
export const isDeadInstance = (instanceId: ReturnType<typeof sql>, aliveAfter: Date) =>
  sql<boolean>`not exists (select 1 from server_instances i
    where i.id = ${instanceId} and i.heartbeat_at >= ${aliveAfter})`
