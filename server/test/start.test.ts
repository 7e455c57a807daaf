import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'

const dataDir = mkdtempSync(join(tmpdir(), 'parley-start-'))
const children: ChildProcess[] = []
afterAll(() => {
  for (const child of children) child.kill('SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
})

const mainScript = fileURLToPath(new URL('../src/main.ts', import.meta.url))
const tsxLoader = import.meta.resolve('tsx')

/**
 * Runs `npm start`'s server entry as a person would, on the embedded defaults unless `env` says
 * otherwise, from `cwd` (the repository unless given), and reads the block.
 */
const startMain = async ({
  env = { DATA_DIR: dataDir },
  cwd,
}: {
  env?: Record<string, string>
  cwd?: string
} = {}) => {
  const child = spawn(process.execPath, ['--import', tsxLoader, mainScript], {
    env: { PATH: process.env.PATH, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(cwd ? { cwd } : {}),
  })
  children.push(child)
  let output = ''
  child.stdout?.on('data', (chunk) => {
    output += chunk
  })
  child.stderr?.on('data', (chunk) => {
    output += chunk
  })
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no welcome block within 100 s:\n${output}`)), 100_000)
    child.stdout?.on('data', () => {
      if (output.includes('Data lives in')) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)))
  })
  const field = (label: string) => output.match(new RegExp(`${label}\\s+(.+)`))?.[1]?.trim() ?? ''
  return { child, output, url: field('Parley is running at'), field }
}

/** The exit code after SIGTERM, or the signal that ended the process instead. */
const stopMain = (child: ChildProcess) =>
  new Promise<number | string | null>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal))
    child.kill('SIGTERM')
  })

const admin = (url: string, ...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'server/src/admin/cli.ts', ...args], {
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, PUBLIC_BASE_URL: url },
    encoding: 'utf8',
  })

// A start waits up to 100 s for the block: every migration on a fresh PGlite, and on a busy machine
// (another test file beside it, other work on the cores) 45 s proved too short for it.
describe('npm start on an empty DATA_DIR', { timeout: 150_000 }, () => {
  let first: Awaited<ReturnType<typeof startMain>>

  it('seeds the demo tenant and prints the demo URL, owner login, widget key and admin token', async () => {
    first = await startMain()
    expect(first.url).toMatch(/^http:\/\/localhost:\d+$/)
    expect(first.field('Demo page')).toBe(`${first.url}/demo/`)
    expect(first.field('Widget key')).toMatch(/^tk_widget_[\w-]{32}$/)
    expect(first.field('Demo agents')).toMatch(/^text [0-9A-Z]{26}, pipeline [0-9A-Z]{26}$/)
    expect(first.field('Admin token')).toMatch(/^[\w-]{43}$/)
    expect(first.field('Voice')).toBe('off: set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET')
    const [email, password] = first.field('Owner login').split(/\s+\/\s+/)

    expect((await fetch(`${first.url}/readyz`)).status).toBe(200)
    expect((await fetch(`${first.url}/demo/`)).status).toBe(200)
    const login = await fetch(`${first.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    })
    expect(login.status).toBe(200)
    expect((await login.json()).organization.name).toBe('Parley Demo')
    expect(statSync(join(dataDir, 'secrets.json')).mode & 0o777).toBe(0o600)
  })

  it('answers the operator CLI', () => {
    const orgs = admin(first.url, 'orgs')
    expect(orgs.status).toBe(0)
    expect(orgs.stdout).toMatch(/Parley Demo\s+free\s+60\s+\$5\.00/)
    const orgId = orgs.stdout.split('\n')[1]?.split(/\s+/)[0] ?? ''
    const credit = admin(first.url, 'credit', orgId, '2.5', 'Demo', 'top-up')
    expect(credit.stdout).toContain('balance $7.50')
    const bad = admin(first.url, 'credit', orgId, 'lots', 'x')
    expect(bad.status).toBe(1)
    expect(bad.stderr).toMatch(/^400: amountUsd/)
    // Without PUBLIC_BASE_URL it finds the server on PORT, as npm start's was given.
    const byPort = spawnSync(process.execPath, ['--import', 'tsx', 'server/src/admin/cli.ts', 'orgs'], {
      env: { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: new URL(first.url).port },
      encoding: 'utf8',
    })
    expect(byPort.stdout).toContain('Parley Demo')
    const down = admin('http://127.0.0.1:9', 'orgs')
    expect(down.stderr).toContain('Parley is not reachable')
  })

  it('stops on SIGTERM with exit code 0, and a second start prints the same block without reseeding', async () => {
    expect(await stopMain(first.child)).toBe(0)
    const second = await startMain()
    for (const label of ['Owner login', 'Widget key', 'Admin token'])
      expect(second.field(label)).toBe(first.field(label))
    const orgs = admin(second.url, 'orgs')
    expect(orgs.stdout.trim().split('\n')).toHaveLength(2)
    expect(orgs.stdout).toContain('$7.50')
    expect(await stopMain(second.child)).toBe(0)
  })
})

// With DATABASE_URL set nothing makes DATA_DIR (the embedded database and generated secrets did):
// the first start wrote demo.json into a directory that did not exist, after the demo was
// committed, and every later start went without the demo's lines.
describe.runIf(process.env.TEST_DATABASE_URL)(
  'npm start with DATABASE_URL and no DATA_DIR',
  { timeout: 150_000 },
  () => {
    const workDir = mkdtempSync(join(tmpdir(), 'parley-start-pg-'))
    const name = `parley_start_${randomBytes(6).toString('hex')}`
    const adminUrl = process.env.TEST_DATABASE_URL ?? ''
    const admin = async (statement: string) => {
      const client = new pg.Client({ connectionString: adminUrl })
      await client.connect()
      await client.query(statement)
      await client.end()
    }
    // Set when the test runs: describe's body runs in embedded mode too, to list what it skips.
    const env = () => ({
      DATABASE_URL: Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString(),
      JWT_SECRET: randomBytes(32).toString('hex'),
      ADMIN_TOKEN: randomBytes(32).toString('hex'),
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    })
    afterAll(async () => {
      if (!adminUrl) return
      await admin(`drop database if exists ${name} with (force)`)
      rmSync(workDir, { recursive: true, force: true })
    })

    it('prints the demo block on the first start, and again once demo.json is lost', async () => {
      await admin(`create database ${name}`)
      const secrets = env()
      const first = await startMain({ env: secrets, cwd: workDir })
      expect(first.field('Owner login')).toMatch(/^demo@parley\.test\s+\/\s+\S+$/)
      expect(first.field('Widget key')).toMatch(/^tk_widget_[\w-]{32}$/)
      expect(existsSync(join(workDir, '.data', 'demo.json'))).toBe(true)
      // How it stops is the first describe's subject; here only that it has stopped.
      await stopMain(first.child)

      rmSync(join(workDir, '.data', 'demo.json'))
      const second = await startMain({ env: secrets, cwd: workDir })
      expect(second.field('Demo agents')).toBe(first.field('Demo agents'))
      expect(second.field('Owner login')).not.toBe(first.field('Owner login'))
      const [email, password] = second.field('Owner login').split(/\s+\/\s+/)
      const login = await fetch(`${second.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      })
      expect(login.status).toBe(200)
      await stopMain(second.child)
    })
  },
)
