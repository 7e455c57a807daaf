import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/**
 * The README's API walkthrough, run as written: its sh blocks, in order, in one bash (so the
 * variables one step sets reach the next), against a fresh server. Each step's output must have
 * the shape the README shows after it: the same keys and the same non-id values for JSON, the
 * same lines for text.
 */
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
const section = readme.split('<!-- walkthrough:start -->')[1]?.split('<!-- walkthrough:end -->')[0] ?? ''
const unindent = (text: string) => text.replace(/^ {3}/gm, '')
const steps = [...section.matchAll(/```sh\n([\s\S]*?)```\s*```(json|text)\n([\s\S]*?)```/g)].map((match) => ({
  command: unindent(match[1] ?? ''),
  kind: match[2] as 'json' | 'text',
  shown: unindent(match[3] ?? '').trim(),
}))
const MARK = '---parley-walkthrough-step---'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.destroy()
})

/** Keys everywhere, and the values that do not change from run to run (ids, tokens and times do). */
const shapeOf = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(shapeOf)
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, shapeOf(inner)]))
  if (typeof value === 'string' && /^[0-9A-Z]{26}$|^\d{4}-\d\d-\d\dT|••••/.test(value)) return typeof value
  return value
}

describe('the README API walkthrough', () => {
  it('has the eight steps: sign up, secret key, agent, widget key, session, message, history, end', () => {
    expect(steps).toHaveLength(8)
  })

  it('runs as written, each step printing what the README shows', async () => {
    const script = [
      'set -euo pipefail',
      ...steps.map(
        ({ command }) => `echo '${MARK}'\n${command.replaceAll('http://localhost:8787', server.url)}`,
      ),
    ].join('\n')
    // Not spawnSync: the server answering curl runs on this process's event loop.
    const result = await promisify(execFile)('bash', ['-c', script], { encoding: 'utf8' })
    expect(result.stderr).toBe('')
    const outputs = result.stdout.split(`${MARK}\n`).slice(1)
    expect(outputs).toHaveLength(steps.length)
    steps.forEach(({ kind, shown }, index) => {
      const printed = outputs[index]?.trim() ?? ''
      if (kind === 'json') expect(shapeOf(JSON.parse(printed))).toEqual(shapeOf(JSON.parse(shown)))
      else expect(printed).toBe(shown)
    })
  })
})

/** The "with the client" walkthrough: its TypeScript block and the lines it prints. */
const clientSection =
  readme.split('<!-- client-walkthrough:start -->')[1]?.split('<!-- client-walkthrough:end -->')[0] ?? ''
const clientCode = clientSection.match(/```ts\n([\s\S]*?)```/)?.[1] ?? ''
const clientShown = clientSection.match(/```text\n([\s\S]*?)```/)?.[1]?.trim() ?? ''

describe('the README walkthrough with the client', () => {
  it('runs as written, printing what the README shows', async () => {
    expect(clientCode).toContain("from '@parley/client'")
    // Beside the client's package, so '@parley/client' resolves as it does for a user.
    const file = new URL(`../../client/.walkthrough-${randomBytes(4).toString('hex')}.ts`, import.meta.url)
    writeFileSync(file, clientCode)
    const printed: string[] = []
    const log = vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => {
      printed.push(parts.map(String).join(' '))
    })
    process.env.PARLEY_URL = server.url
    try {
      await import(pathToFileURL(file.pathname).href)
    } finally {
      log.mockRestore()
      delete process.env.PARLEY_URL
      rmSync(file, { force: true })
    }
    expect(printed.join('\n')).toBe(clientShown)
  })
})
