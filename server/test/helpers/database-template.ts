import { createHash, randomBytes } from 'node:crypto'
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { loadConfig } from '../../src/config.ts'
import { migrateToLatest, openDatabase } from '../../src/db/index.ts'

/**
 * Test servers start from a database that is already migrated instead of running initdb and every
 * migration per server (10–14 s each on this kind of machine, most of a server file's set-up).
 * The template is keyed on the migration set and the PGlite version, so a stale one is never used;
 * it is built once (by vitest's global set-up, or by the first server that needs it) and kept
 * across runs, as an up-to-date database costs nothing to keep. Builders race safely: each builds
 * under a name of its own and publishes it with one rename.
 */
const migrationsDirectory = fileURLToPath(new URL('../../src/db/migrations/', import.meta.url))

/** Its package.json is not exported: found from the entry point up. */
const pgliteVersion = () => {
  let directory = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'))
  while (!existsSync(join(directory, 'package.json'))) directory = dirname(directory)
  return JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')).version as string
}

const templateKey = (() => {
  let key: string | undefined
  return () => {
    if (key) return key
    const hash = createHash('sha256')
    hash.update(`pglite ${pgliteVersion()}\n`)
    for (const file of readdirSync(migrationsDirectory).sort()) {
      hash.update(`${file}\n`)
      hash.update(readFileSync(join(migrationsDirectory, file)))
    }
    key = hash.digest('hex').slice(0, 16)
    return key
  }
})()

/** The environment of a throwaway server config: only the database settings matter here. */
const migrationEnv = (extra: Record<string, string>) => ({
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  JWT_SECRET: randomBytes(32).toString('hex'),
  ADMIN_TOKEN: randomBytes(32).toString('hex'),
  ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  ...extra,
})

const migrate = async (env: Record<string, string>) => {
  const database = await openDatabase(loadConfig(migrationEnv(env)))
  try {
    await migrateToLatest(database.db)
  } finally {
    await database.close()
  }
}

let embeddedTemplate: Promise<string> | undefined

/**
 * A migrated PGlite data directory (what a server keeps in `DATA_DIR/pg`), to be copied: PGlite
 * was closed cleanly, so the copy opens like any restarted server's, and the migrator finds every
 * migration applied.
 */
export const prepareEmbeddedTemplate = (): Promise<string> => {
  embeddedTemplate ??= (async () => {
    const directory = join(tmpdir(), `parley-template-${templateKey()}`)
    if (existsSync(join(directory, 'ready'))) return join(directory, 'pg')
    const building = mkdtempSync(join(tmpdir(), `parley-template-${templateKey()}-building-`))
    try {
      await migrate({ DATA_DIR: building })
      writeFileSync(join(building, 'ready'), '')
      renameSync(building, directory)
    } catch (error) {
      rmSync(building, { recursive: true, force: true })
      // Another run published the same template first: use theirs.
      if (!existsSync(join(directory, 'ready'))) throw error
    }
    return join(directory, 'pg')
  })()
  return embeddedTemplate
}

const quote = (name: string) => `"${name}"`
const templates = new Map<string, Promise<string>>()

/**
 * A migrated database on the server of `adminUrl`, named for the migration set, which scratch
 * databases copy (`CREATE DATABASE … TEMPLATE …`). It refuses connections once built: PostgreSQL
 * copies a template only while nobody is connected to it.
 */
export const prepareDatabaseTemplate = (adminUrl: string): Promise<string> => {
  let template = templates.get(adminUrl)
  if (!template) {
    template = buildDatabaseTemplate(adminUrl)
    templates.set(adminUrl, template)
  }
  return template
}

const buildDatabaseTemplate = async (adminUrl: string) => {
  const name = `parley_template_${templateKey()}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    const exists = await admin.query('select 1 from pg_database where datname = $1', [name])
    if (exists.rowCount) return name
    const building = `${name}_${randomBytes(4).toString('hex')}`
    await admin.query(`create database ${quote(building)}`)
    try {
      const url = new URL(adminUrl)
      url.pathname = `/${building}`
      await migrate({ DATABASE_URL: url.toString() })
      // PostgreSQL waits (up to 5 s) for the migrator's connections to go before renaming.
      await admin.query(`alter database ${quote(building)} rename to ${quote(name)}`)
      await admin.query(`alter database ${quote(name)} with is_template true allow_connections false`)
    } catch (error) {
      await admin.query(`drop database if exists ${quote(building)} with (force)`)
      // 42P04 duplicate_database: another run published the same template first.
      if ((error as { code?: string }).code !== '42P04') throw error
    }
    return name
  } finally {
    await admin.end()
  }
}
