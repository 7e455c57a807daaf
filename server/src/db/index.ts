import { Kysely, Migrator, PostgresDialect, sql, type Transaction } from 'kysely'
import pg from 'pg'
import type { Logger } from 'pino'
import type { Config } from '../config.ts'
import { measurePoolWaits } from '../metrics/index.ts'
import { startEmbeddedPostgres } from './embedded.ts'
import { migrations } from './migrations/index.ts'
import type { Database } from './schema.ts'
import { withStatementCache } from './statement-cache.ts'

export type { Database } from './schema.ts'
/** What a store function runs its SQL on: the database or an open transaction. */
export type Executor = Kysely<Database> | Transaction<Database>

export type DatabaseHandle = {
  db: Kysely<Database>
  /** The pool Kysely uses. */
  pool: pg.Pool
  /**
   * The job queue's: a small pool of its own on a real server, so that its poll (one statement
   * per job name, all at once, every 500 ms) never takes or waits for the connections requests
   * use; embedded, the one connection there is.
   */
  jobsPool: pg.Pool
  isEmbedded: boolean
  ping: () => Promise<void>
  close: () => Promise<void>
}

/** PostgreSQL's unique_violation: the row a store tried to write already exists. */
export const isUniqueViolation = (error: unknown) => (error as { code?: string })?.code === '23505'

const int8Parser = (value: string): number => {
  const parsed = Number(value)
  if (!Number.isSafeInteger(parsed)) throw new RangeError(`bigint ${value} is outside the safe integer range`)
  return parsed
}

/** bigint columns hold micro-USD amounts: read them as numbers, refusing any that would lose precision. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8
      ? int8Parser
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
}

const POOL_SIZE = 10
/** The job queue's own connections on a real server: its poll's statements queue on them. */
const JOBS_POOL_SIZE = 2
/**
 * PGlite is one database session: two connections at once would interleave their statements
 * ("bind message supplies 2 parameters…", wrong rows, one connection's BEGIN covering another's
 * queries). One connection queues them in the pool instead. Found by concurrent chat session creation.
 */
const EMBEDDED_POOL_SIZE = 1

/** Connects to DATABASE_URL, or starts the embedded PGlite in DATA_DIR when it is unset. */
export const openDatabase = async (
  config: Config,
  { logger }: { logger?: Logger } = {},
): Promise<DatabaseHandle> => {
  const embedded = config.databaseUrl
    ? null
    : await startEmbeddedPostgres({
        dataDir: config.dataDir,
        logger,
        // pgvector is loaded only when knowledge has an embedding model to fill it.
        withVectors: config.knowledge.embeddings !== null,
      })
  const openPool = (max: number) => {
    const opened = new pg.Pool({
      ...(embedded
        ? { stream: embedded.connect, user: 'postgres', database: 'postgres' }
        : { connectionString: config.databaseUrl ?? undefined }),
      max,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: 10_000,
      types,
    })
    // An idle client that loses its server must not crash the process; the next checkout reconnects.
    opened.on('error', () => {})
    return opened
  }
  const pool = openPool(embedded ? EMBEDDED_POOL_SIZE : POOL_SIZE)
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: withStatementCache(pool) }) })
  const jobsPool = embedded ? pool : openPool(JOBS_POOL_SIZE)
  if (config.metrics.isEnabled) {
    measurePoolWaits(pool, embedded ? 'embedded' : 'postgres')
    if (jobsPool !== pool) measurePoolWaits(jobsPool, 'jobs')
  }
  return {
    db,
    pool,
    jobsPool,
    isEmbedded: embedded !== null,
    ping: async () => {
      await sql`select 1`.execute(db)
    },
    close: async () => {
      await db.destroy()
      if (jobsPool !== pool) await jobsPool.end()
      await embedded?.stop()
    },
  }
}

/**
 * Whether the database has applied exactly the migrations this code has. Kysely's Migrator finds
 * its tables by introspecting every column of every table first, which on the embedded database
 * took about 80 ms of each start (a test run starts about 150 servers); two plain reads answer the
 * common case. Anything else (a pending migration, one this code does not know) goes to the
 * Migrator, which applies, locks and refuses exactly as before.
 */
const isUpToDate = async (db: Kysely<Database>) => {
  const { rows } = await sql<{ found: boolean }>`
    select to_regclass('kysely_migration') is not null as found`.execute(db)
  if (!rows[0]?.found) return false
  const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(db)
  const names = new Set(applied.rows.map((row) => row.name))
  const known = Object.keys(migrations)
  return names.size === known.length && known.every((name) => names.has(name))
}

/** Applies every pending migration; safe to run concurrently from several instances (Kysely locks). */
export const migrateToLatest = async (db: Kysely<Database>): Promise<string[]> => {
  if (await isUpToDate(db)) return []
  // Migration numbers are assigned per issue and branches land in any order (0010 may reach a
  // database before 0009): each still runs once, in name order among those not yet applied.
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    allowUnorderedMigrations: true,
  })
  const { error, results } = await migrator.migrateToLatest()
  if (error) throw error instanceof Error ? error : new Error(String(error))
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName)
}
