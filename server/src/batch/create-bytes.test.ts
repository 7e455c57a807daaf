import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBatchJson, createBatchTenant, rawMultipart } from '../../test/helpers/batch.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

/**
 * Bytes no batch field or CSV cell may hold: what PostgreSQL cannot store (NUL) and what is not
 * UTF-8 are refused by create and by preview alike, in the batch shape {detail, code}, and
 * nothing is created. Column names JavaScript objects treat specially are refused or kept.
 */
let server: TestServer
let tenant: Awaited<ReturnType<typeof createBatchTenant>>

// ROLE=api: no worker takes the queued jobs.
beforeAll(async () => {
  server = await startTestServer({ env: { ROLE: 'api' } })
  tenant = await createBatchTenant(server)
})
afterAll(() => server?.destroy())

const paths = ['/batch/create', '/batch/preview'] as const

const fieldsOf = (extra: Record<string, string> = {}) => ({
  fromPhoneNumberId: tenant.phoneNumberId,
  name: 'Bytes',
  ...extra,
})

/** A CSV-mode request to `path` (create or preview), fields and file as a form carries them. */
const csvTo = (path: string, file: string | Buffer, fields: Record<string, string> = {}) => {
  const { body, contentType } = rawMultipart(Object.entries(fieldsOf(fields)), file)
  return server.request(path, {
    method: 'POST',
    token: tenant.key,
    headers: { 'content-type': contentType },
    body,
  })
}

const jobCount = async () =>
  Number(
    (
      await server.ctx.db
        .selectFrom('batch_jobs')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('organization_id', '=', tenant.team.organizationId)
        .executeTakeFirstOrThrow()
    ).n,
  )

const expectRefused = async (response: Response, code: string, detail: RegExp) => {
  const body = await response.json()
  expect({ status: response.status, body }).toEqual({
    status: 400,
    body: { detail: expect.stringMatching(detail), code },
  })
}

describe('bytes a batch request may not hold', () => {
  it.each(paths)(
    '%s refuses NUL in name, description and fromPhoneNumberId (invalid_encoding)',
    async (path) => {
      const before = await jobCount()
      for (const field of ['name', 'description', 'fromPhoneNumberId']) {
        const response = await csvTo(path, 'phone\n+14155550111', { [field]: 'a\u0000b' })
        await expectRefused(response, 'invalid_encoding', new RegExp(`^${field}: must not contain NUL`))
      }
      expect(await jobCount()).toBe(before)
    },
  )

  it.each(paths)('%s refuses a form field that is not UTF-8 (invalid_encoding)', async (path) => {
    const { body, contentType } = rawMultipart(
      [
        ['fromPhoneNumberId', tenant.phoneNumberId],
        ['name', Buffer.from([0x4a, 0x6f, 0x73, 0xe9])],
      ],
      'phone\n+14155550111',
    )
    const response = await server.request(path, {
      method: 'POST',
      token: tenant.key,
      headers: { 'content-type': contentType },
      body,
    })
    await expectRefused(response, 'invalid_encoding', /^name: must be UTF-8 text/)
  })

  it.each(paths)('%s refuses NUL in a CSV cell or header (invalid_csv)', async (path) => {
    const before = await jobCount()
    await expectRefused(
      await csvTo(path, 'phone,note\n+14155550111,a\u0000b'),
      'invalid_csv',
      /row 2 holds a NUL/,
    )
    await expectRefused(
      await csvTo(path, 'phone,no\u0000te\n+14155550111,x'),
      'invalid_csv',
      /header holds a NUL/,
    )
    expect(await jobCount()).toBe(before)
  })

  it.each(paths)(
    '%s refuses CSV bytes that are not UTF-8 (invalid_csv), even at the very end',
    async (path) => {
      const latin1 = Buffer.from('phone,name\n+14155550111,Jos\xe9\n', 'latin1')
      await expectRefused(await csvTo(path, latin1), 'invalid_csv', /not UTF-8/)
      // A sequence cut off by the end of the file.
      const cut = Buffer.concat([Buffer.from('phone,name\n+14155550111,Ann'), Buffer.from([0xe2, 0x82])])
      await expectRefused(await csvTo(path, cut), 'invalid_csv', /not UTF-8/)
    },
  )

  it('reads UTF-8 whose characters fall across the chunks of the upload', async () => {
    // 300 KB of two-, three- and four-byte characters: some land across chunk boundaries.
    const rows = Array.from({ length: 3000 }, (_, i) => `+1415${String(2_000_000 + i)},é€𝕏${'ü'.repeat(20)}`)
    const response = await csvTo('/batch/preview', `phone,note\n${rows.join('\n')}`)
    expect(response.status).toBe(200)
    const { data } = await response.json()
    expect(data.validContacts).toBe(3000)
    expect(data.contacts[0].fields).toEqual({ note: `é€𝕏${'ü'.repeat(20)}` })
  })
})

describe('column names JavaScript objects treat specially', () => {
  it.each(paths)('%s refuses a __proto__ column rather than dropping it', async (path) => {
    await expectRefused(await csvTo(path, 'phone,__proto__\n+14155550111,x'), 'invalid_csv', /__proto__/)
  })

  it('keeps constructor and prototype columns as ordinary fields, through preview, create and the contact list', async () => {
    const file = 'phone,constructor,prototype,toString\n+14155550111,Bob Builder,v1,yes'
    const preview = await csvTo('/batch/preview', file)
    expect(preview.status).toBe(200)
    const fields = { constructor: 'Bob Builder', prototype: 'v1', toString: 'yes' }
    expect((await preview.json()).data.contacts[0].fields).toEqual(fields)
    const created = await csvTo('/batch/create', file)
    expect(created.status).toBe(201)
    const { batchJobId } = await created.json()
    const contacts = await server.request(`/batch/${batchJobId}/contacts`, { token: tenant.key })
    expect((await contacts.json()).data[0]).toMatchObject({ phone: '+14155550111', fields })
  })

  it('refuses a JSON contact field named __proto__ and keeps constructor', async () => {
    const proto = await server.request('/batch/preview', {
      method: 'POST',
      token: tenant.key,
      headers: { 'content-type': 'application/json' },
      body: `{"fromPhoneNumberId":"${tenant.phoneNumberId}","name":"P","contacts":[{"phone":"+14155550111","__proto__":"x"}]}`,
    })
    expect(proto.status).toBe(400)
    expect(await proto.json()).toEqual({
      code: 'invalid_encoding',
      detail: 'Request body must not use __proto__ as a key',
    })
    const kept = await createBatchJson(server, tenant.key, {
      ...fieldsOf(),
      contacts: [{ phone: '+14155550111', constructor: 'Bob' }],
    })
    expect(kept.status).toBe(201)
  })
})
