import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import type { Logger } from 'pino'
import type { ExtendApp } from '../../src/app.ts'
import type { Clock } from '../../src/clock.ts'
import { type Config, loadConfig } from '../../src/config.ts'
import { type RunningServer, start } from '../../src/server.ts'
import { prepareDatabaseTemplate, prepareEmbeddedTemplate } from './database-template.ts'

/**
 * With TEST_DATABASE_URL set, each call gets a database of its own on that server (dropped at
 * stop), so test files never see each other's rows; otherwise the embedded PGlite in a temp dir.
 * Either way it starts as a copy of the migrated template (see database-template.ts).
 */
const createScratchDatabase = async (adminUrl: string, { fromScratch = false } = {}) => {
  const template = fromScratch ? null : await prepareDatabaseTemplate(adminUrl)
  const name = `parley_test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`)
  await admin.end()
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl })
      await client.connect()
      await client.query(`drop database if exists ${name} with (force)`)
      await client.end()
    },
  }
}

/**
 * The data directory is copied and removed by the system's `cp` and `rm`: Node 20's recursive
 * `fs.cp` and `fs.rm` walk the template's 1,230 files in JavaScript, which cost 0.3–0.5 s and
 * 0.04–0.2 s of CPU per server against about 0.05 s and 0.01 s for `cp -R` and `rm -rf`. A suite
 * starts about 150 embedded servers.
 */
const run = promisify(execFile)
const copyDirectory = (from: string, to: string) => run('cp', ['-R', from, to])
const removeDirectory = (directory: string) => run('rm', ['-rf', directory])

export type TestServer = RunningServer & {
  config: Config
  env: Record<string, string>
  /** Stops the server; the data directory and database are kept for a restart. */
  stop: () => Promise<void>
  /** Starts the same server again on the same data. */
  restart: () => Promise<TestServer>
  /** Stops and removes everything the server made. */
  destroy: () => Promise<void>
  request: (path: string, init?: RequestInit & { json?: unknown; token?: string }) => Promise<Response>
}

export type TestServerOptions = {
  env?: Record<string, string>
  seedDemo?: boolean
  /** Extra routes on the real middleware chain (probe routes for mechanisms whose users land later). */
  extendApp?: ExtendApp
  /** A second instance on the first one's database (needs TEST_DATABASE_URL; PGlite is one process). */
  shareDatabaseWith?: TestServer
  /** "Now" for batch scheduling and calling windows (see fake-clock.ts). */
  clock?: Clock
  /** Log lines go here instead of stdout (see capture-log.ts). */
  logger?: Logger
  /** An empty database instead of the migrated template: start() runs every migration, as on a first start. */
  fromScratch?: boolean
}

/** Whether two instances can share PostgreSQL and Redis, as production instances do. */
export const canRunTwoInstances = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL)

const boot = async (
  env: Record<string, string>,
  options: TestServerOptions,
  cleanup: () => Promise<void>,
): Promise<TestServer> => {
  const config = loadConfig(env)
  const running = await start({
    config,
    seedDemo: options.seedDemo ?? false,
    ...(options.extendApp ? { extendApp: options.extendApp } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  })
  const request: TestServer['request'] = (path, { json, token, headers, ...init } = {}) =>
    fetch(`${running.url}${path}`, {
      ...init,
      headers: {
        ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(headers as Record<string, string>),
      },
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
    })
  return {
    ...running,
    config,
    env,
    request,
    restart: async () => boot(env, options, cleanup),
    destroy: async () => {
      await running.stop()
      await cleanup()
    },
  }
}

export const startTestServer = async (options: TestServerOptions = {}): Promise<TestServer> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-test-'))
  const shared = options.shareDatabaseWith?.env.DATABASE_URL
  if (options.shareDatabaseWith && !shared) throw new Error('shareDatabaseWith needs TEST_DATABASE_URL')
  const database =
    process.env.TEST_DATABASE_URL && !shared
      ? await createScratchDatabase(process.env.TEST_DATABASE_URL, { fromScratch: options.fromScratch })
      : null
  if (!process.env.TEST_DATABASE_URL && !options.fromScratch)
    await copyDirectory(await prepareEmbeddedTemplate(), join(dataDir, 'pg'))
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    PORT: '0',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    JWT_SECRET: randomBytes(32).toString('hex'),
    ADMIN_TOKEN: randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    // Suites sign up and sign in many accounts from 127.0.0.1; guess-limits.test.ts lowers these.
    SIGNIN_ATTEMPTS_PER_ADDRESS: '100000',
    SIGNUPS_PER_ADDRESS: '100000',
    KEY_FAILURES_PER_ADDRESS: '100000',
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...(shared ? { DATABASE_URL: shared } : {}),
    ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL } : {}),
    ...options.env,
  }
  return boot(env, options, async () => {
    await database?.drop()
    await removeDirectory(dataDir)
  })
}
