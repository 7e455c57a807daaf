import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import type { AppContext } from '../context.ts'
import { ensureDemoTenant } from './demo.ts'

/**
 * The demo tenant of a first start where nothing has made DATA_DIR yet (an external database, the
 * secrets given), and its recovery once demo.json is gone.
 */
let server: TestServer
let scratch: string
let ctx: AppContext
beforeAll(async () => {
  server = await startTestServer({ env: { ROLE: 'api' } })
  scratch = mkdtempSync(join(tmpdir(), 'parley-demo-'))
  ctx = { ...server.ctx, config: { ...server.ctx.config, dataDir: join(scratch, 'not', 'made', 'yet') } }
})
afterAll(async () => {
  await server.destroy()
  rmSync(scratch, { recursive: true, force: true })
})

const demoFile = () => join(ctx.config.dataDir, 'demo.json')

const expectUsable = async (tenant: {
  ownerEmail: string
  ownerPassword: string
  widgetKey: string
  textAgentId: string
}) => {
  const login = await server.request('/api/auth/login', {
    method: 'POST',
    json: { email: tenant.ownerEmail, password: tenant.ownerPassword },
  })
  expect(login.status).toBe(200)
  const session = await server.request('/v1/chat/sessions', {
    method: 'POST',
    headers: { 'x-api-key': tenant.widgetKey, origin: 'http://localhost:8787' },
    json: { agent_id: tenant.textAgentId },
  })
  expect(session.status).toBe(200)
}

describe('the demo tenant', () => {
  let first: NonNullable<Awaited<ReturnType<typeof ensureDemoTenant>>>

  it('is seeded on a first start whose DATA_DIR does not exist, and recorded there (0600)', async () => {
    expect(existsSync(ctx.config.dataDir)).toBe(false)
    const seeded = await ensureDemoTenant(ctx)
    expect(seeded?.isNew).toBe(true)
    first = seeded as NonNullable<typeof seeded>
    expect(JSON.parse(readFileSync(demoFile(), 'utf8'))).toEqual(first.tenant)
    expect(statSync(demoFile()).mode & 0o777).toBe(0o600)
    await expectUsable(first.tenant)
    // The next start reads it back.
    expect(await ensureDemoTenant(ctx)).toEqual({ tenant: first.tenant, isNew: false })
  })

  it('is recovered when demo.json is gone: same organization and agents, a new password and widget key', async () => {
    rmSync(demoFile())
    const recovered = await ensureDemoTenant(ctx)
    expect(recovered?.isNew).toBe(false)
    const tenant = recovered?.tenant as NonNullable<typeof recovered>['tenant']
    expect(tenant).toMatchObject({
      organizationId: first.tenant.organizationId,
      ownerEmail: first.tenant.ownerEmail,
      textAgentId: first.tenant.textAgentId,
      pipelineAgentId: first.tenant.pipelineAgentId,
    })
    expect(tenant.ownerPassword).not.toBe(first.tenant.ownerPassword)
    expect(tenant.widgetKey).not.toBe(first.tenant.widgetKey)
    expect(JSON.parse(readFileSync(demoFile(), 'utf8'))).toEqual(tenant)
    await expectUsable(tenant)
  })
})
