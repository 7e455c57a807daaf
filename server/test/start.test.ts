import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const dataDir = mkdtempSync(join(tmpdir(), 'parley-start-'))
const children: ChildProcess[] = []
afterAll(() => {
  for (const child of children) child.kill('SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
})

/** Runs `npm start`'s server entry as a person would, on the embedded defaults, and reads the block. */
const startMain = async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
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

const stopMain = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code))
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
