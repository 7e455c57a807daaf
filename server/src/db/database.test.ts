import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { logIn, signUp } from '../../test/helpers/accounts.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { migrateToLatest } from './index.ts'
import { migrations } from './migrations/index.ts'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.destroy()
})

describe('migrations', () => {
  it('are applied at start, and running them again is a no-op', async () => {
    const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
      server.ctx.db,
    )
    expect(applied.rows.map((row) => row.name)).toEqual(Object.keys(migrations).sort())
    expect(await migrateToLatest(server.ctx.db)).toEqual([])
    expect(await migrateToLatest(server.ctx.db)).toEqual([])
  })

  it('go to the migrator when the database has applied one this code does not know', async () => {
    await sql`insert into kysely_migration (name, timestamp) values ('9999-from-a-newer-version', ${new Date().toISOString()})`.execute(
      server.ctx.db,
    )
    try {
      await expect(migrateToLatest(server.ctx.db)).rejects.toThrow(/9999-from-a-newer-version/)
    } finally {
      await sql`delete from kysely_migration where name = '9999-from-a-newer-version'`.execute(server.ctx.db)
    }
    expect(await migrateToLatest(server.ctx.db)).toEqual([])
  })

  // initdb and every migration: like start.test.ts's first start, far beyond 30 s on a busy machine.
  it('build a new database from nothing on a first start', { timeout: 150_000 }, async () => {
    // Test servers copy a migrated template; this one starts the way a new install does.
    const fresh = await startTestServer({ fromScratch: true })
    try {
      const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
        fresh.ctx.db,
      )
      expect(applied.rows.map((row) => row.name)).toEqual(Object.keys(migrations).sort())
    } finally {
      await fresh.destroy()
    }
  })

  it('keep the credit ledger append-only', async () => {
    const owner = await signUp(server)
    await expect(
      sql`update credit_ledger set amount_micros = 1 where organization_id = ${owner.organization.id}`.execute(
        server.ctx.db,
      ),
    ).rejects.toThrow(/append-only/)
    await expect(
      sql`delete from credit_ledger where organization_id = ${owner.organization.id}`.execute(server.ctx.db),
    ).rejects.toThrow(/append-only/)
  })
})

describe('persistence', () => {
  it('keeps data across a restart of the server', async () => {
    const owner = await signUp(server, { organizationName: 'Survivors Ltd' })
    await server.stop()
    server = await server.restart()
    const session = await logIn(server, owner.user.email)
    expect(session.organization).toMatchObject({ id: owner.organization.id, name: 'Survivors Ltd' })
    expect((await server.request('/readyz')).status).toBe(200)
  })
})
