import { type Kysely, sql } from 'kysely'
import type pg from 'pg'
import { Gauge } from 'prom-client'
import type { Database } from '../db/schema.ts'
import { registry } from './registry.ts'

type Observed = { pool: pg.Pool; db: Kysely<Database> }

// Tests run several servers in one process: the pools add up; the deployment-wide readings
// (queue lag, active calls) come from the newest database.
const observed = new Set<Observed>()
const newest = () => [...observed].at(-1)

new Gauge({
  name: 'parley_db_pool_connections',
  help: 'Database pool connections by state (idle, busy)',
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    let idle = 0
    let total = 0
    for (const { pool } of observed) {
      idle += pool.idleCount
      total += pool.totalCount
    }
    this.set({ state: 'idle' }, idle)
    this.set({ state: 'busy' }, total - idle)
  },
})

new Gauge({
  name: 'parley_db_pool_waiting_requests',
  help: 'Queries waiting for a database pool connection',
  registers: [registry],
  collect() {
    let waiting = 0
    for (const { pool } of observed) waiting += pool.waitingCount
    this.set(waiting)
  },
})

new Gauge({
  name: 'parley_job_queue_lag_seconds',
  help: 'Age of the oldest due job not yet started, by job name (deployment-wide, from the queue table)',
  labelNames: ['job_name'] as const,
  registers: [registry],
  async collect() {
    this.reset()
    const db = newest()?.db
    if (!db) return
    const { rows } = await sql<{ name: string; lag: string | number }>`
      select name, extract(epoch from (now() - min(next_run_at))) as lag
      from agenda_jobs
      where next_run_at <= now() and locked_at is null and coalesce(disabled, false) = false
      group by name`
      .execute(db)
      .catch(() => ({ rows: [] }))
    for (const row of rows) this.set({ job_name: row.name }, Math.max(0, Number(row.lag)))
  },
})

new Gauge({
  name: 'parley_calls_active',
  help: 'Calls in progress, by direction (deployment-wide, from the calls table)',
  labelNames: ['direction'] as const,
  registers: [registry],
  async collect() {
    this.reset()
    const db = newest()?.db
    if (!db) return
    const rows = await db
      .selectFrom('calls')
      .select(['direction', (eb) => eb.fn.countAll<string>().as('count')])
      .where('status', '=', 'active')
      .groupBy('direction')
      .execute()
      .catch(() => [])
    for (const direction of ['web', 'outbound']) this.set({ direction }, 0)
    for (const row of rows) this.set({ direction: row.direction }, Number(row.count))
  },
})

/** Adds a server's database to the readings; answers the function that takes it away. */
export const observeDatabase = (database: Observed) => {
  observed.add(database)
  return () => void observed.delete(database)
}
