import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { staticMounts } from '../app.ts'
import { leavesWithoutExample } from './examples.ts'
import { findUndocumentedRoutes, listMountedRoutes } from './mounted-routes.ts'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../../../', import.meta.url))
const redoclyCli = join(
  dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')),
  'bin/cli.js',
)

let server: TestServer
let document: { openapi: string; info: { version: string }; paths: Record<string, Record<string, unknown>> }
beforeAll(async () => {
  server = await startTestServer()
  document = await (await server.request('/v1/openapi.json')).json()
})
afterAll(async () => {
  await server.destroy()
})

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 with info.version 1.0.0', () => {
    expect(document.openapi).toBe('3.1.0')
    expect(document.info.version).toBe('1.0.0')
  })

  it('gives every operation a unique operationId, for client generators', () => {
    const ids = Object.values(document.paths).flatMap((operations) =>
      Object.values(operations).map((operation) => (operation as { operationId?: string }).operationId),
    )
    expect(ids.length).toBeGreaterThan(40)
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id))).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
    const patch = document.paths['/v1/agents/{agentId}']?.patch as { operationId?: string } | undefined
    expect(patch?.operationId).toBe('patchV1AgentsByAgentId')
  })

  it('gives every field of every request and response a real example, for /docs and client generators', () => {
    expect(leavesWithoutExample(document as never)).toEqual([])
  })

  it('lints clean with Redocly CLI (redocly.yaml: the recommended rules, strict)', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'parley-openapi-'))
    const file = join(directory, 'openapi.json')
    writeFileSync(file, JSON.stringify(document))
    try {
      const { stdout } = await run(
        process.execPath,
        [redoclyCli, 'lint', '--config', join(root, 'redocly.yaml'), '--format', 'json', file],
        { cwd: root, maxBuffer: 16 * 1024 * 1024 },
      ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }))
      const report = JSON.parse(stdout) as {
        totals: { errors: number; warnings: number }
        problems: { ruleId: string; message: string; location: { pointer: string }[] }[]
      }
      const problems = report.problems.map(
        (problem) => `${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`,
      )
      expect(problems).toEqual([])
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 })
    } finally {
      rmSync(directory, { recursive: true, force: true })
    }
    // Redocly reads the whole document (every operation's error codes, every example): a busy
    // machine gives it more than the default 30 s.
  }, 120_000)

  it('describes every route mounted on the app', () => {
    const mounted = listMountedRoutes(server.app)
    expect(mounted.length).toBeGreaterThan(8)
    expect(findUndocumentedRoutes(server.app, document)).toEqual([])
  })

  it('would catch a route mounted behind its back', () => {
    const app = { router: { stack: [{ route: { path: '/v1/hidden/:id', methods: { get: true } } }] } }
    expect(findUndocumentedRoutes(app as never, document)).toEqual([
      { method: 'get', path: '/v1/hidden/{id}' },
    ])
  })

  it('mounts nothing but documented routes and the known static pages', () => {
    const stack = (server.app as unknown as { router: { stack: { route?: unknown; name: string }[] } }).router
      .stack
    const routers = stack.filter(
      (layer) => !layer.route && (layer.name === 'router' || layer.name === 'serveStatic'),
    )
    expect(routers).toHaveLength(staticMounts.length)
  })

  it('documents error responses with the area shape and the codes of each status', () => {
    type Schema = { $ref?: string; allOf?: [{ $ref: string }, { properties: { code: { enum: string[] } } }] }
    const login = document.paths['/api/auth/login']?.post as {
      responses: Record<string, { content: Record<string, { schema: Schema }> }>
    }
    const loginRefused = login.responses['401']?.content['application/json']?.schema
    expect(loginRefused?.allOf?.[0].$ref).toBe('#/components/schemas/StudioError')
    expect(loginRefused?.allOf?.[1].properties.code.enum).toEqual(['unauthorized', 'invalid_credentials'])
    const admin = document.paths['/admin/organizations']?.get as typeof login
    expect(admin.responses['401']?.content['application/json']?.schema.allOf?.[0].$ref).toBe(
      '#/components/schemas/V1Error',
    )
    const send = document.paths['/v1/chat/sessions/{conversation_id}/messages']?.post as typeof login
    expect(
      send.responses['400']?.content['application/json']?.schema.allOf?.[1].properties.code.enum,
    ).toContain('message_too_long')
  })

  it('is the document @parley/client is generated from (npm run openapi:write refreshes it)', () => {
    const snapshot = JSON.parse(readFileSync(join(root, 'client/openapi.json'), 'utf8'))
    expect({ ...document, servers: [{ url: 'http://localhost:8787' }] }).toEqual(snapshot)
  })

  it('describes every operation and declares its tags', () => {
    const declared = new Set(
      (document as unknown as { tags: { name: string }[] }).tags.map((tag) => tag.name),
    )
    for (const operations of Object.values(document.paths))
      for (const operation of Object.values(operations) as { description?: string; tags: string[] }[]) {
        expect(operation.description?.length).toBeGreaterThan(10)
        expect(declared.has(operation.tags[0] ?? '')).toBe(true)
      }
  })

  it('has a readable docs page whose assets are served locally', async () => {
    const page = await server.request('/docs')
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('/docs/assets/swagger-ui-bundle.js')
    expect((await server.request('/docs/assets/swagger-ui-bundle.js')).status).toBe(200)
    expect((await server.request('/docs/start.js')).status).toBe(200)
  })

  it('serves a favicon, linked from the demo page', async () => {
    const icon = await server.request('/favicon.ico')
    expect(icon.status).toBe(200)
    expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/)
    expect(await icon.text()).toContain('<svg')
    expect(await (await server.request('/demo/')).text()).toContain('<link rel="icon" href="/favicon.ico"')
  })
})
