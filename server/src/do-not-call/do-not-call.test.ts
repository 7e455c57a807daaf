import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBatchCsv, createBatchJson, createBatchTenant } from '../../test/helpers/batch.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

let server: TestServer
let mine: Awaited<ReturnType<typeof createBatchTenant>>
let theirs: Awaited<ReturnType<typeof createBatchTenant>>

beforeAll(async () => {
  server = await startTestServer()
  mine = await createBatchTenant(server)
  theirs = await createBatchTenant(server)
})
afterAll(() => server?.destroy())

const v1 = (
  path: string,
  { method = 'GET', json, key = mine.key }: { method?: string; json?: unknown; key?: string } = {},
) => server.request(path, { method, json, token: key })

const add = (phoneNumber: string, key = mine.key, extra: Record<string, unknown> = {}) =>
  v1('/v1/do-not-call', { method: 'POST', json: { phoneNumber, ...extra }, key })

const importCsv = (csv: string, key = mine.key) => {
  const form = new FormData()
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'numbers.csv')
  return server.request('/v1/do-not-call/import', { method: 'POST', token: key, body: form })
}

const listed = async (key = mine.key, query = '') =>
  ((await (await v1(`/v1/do-not-call${query}`, { key })).json()) as { data: Array<Record<string, unknown>> })
    .data

describe('/v1/do-not-call', () => {
  it('adds (idempotently), looks up, lists, and removes a number, with audit entries', async () => {
    const created = await add('+14155550141', mine.key, { note: 'asked by email' })
    expect(created.status).toBe(201)
    expect(await created.json()).toEqual({
      success: true,
      data: {
        phoneNumber: '+14155550141',
        source: 'api',
        sourceKind: 'api',
        note: 'asked by email',
        createdAt: expect.any(String),
      },
      alreadyListed: false,
    })
    const again = await add('+14155550141')
    expect(again.status).toBe(201)
    expect(await again.json()).toMatchObject({ alreadyListed: true, data: { note: 'asked by email' } })

    const found = await v1('/v1/do-not-call?phoneNumber=%2B14155550141')
    expect(found.status).toBe(200)
    expect(await found.json()).toMatchObject({
      data: [{ phoneNumber: '+14155550141' }],
      pagination: { page: 1, total: 1, hasNext: false },
    })
    expect(await listed(mine.key, '?phoneNumber=%2B14155550142')).toEqual([])

    expect((await v1('/v1/do-not-call/+14155550141', { method: 'DELETE' })).status).toBe(200)
    const gone = await v1('/v1/do-not-call/+14155550141', { method: 'DELETE' })
    expect(gone.status).toBe(404)
    expect(await gone.json()).toMatchObject({ success: false, code: 'not_found' })

    const audit = await (await v1('/v1/audit-log?targetId=%2B14155550141')).json()
    expect(audit.data.map((entry: { action: string }) => entry.action)).toEqual([
      'do_not_call.removed',
      'do_not_call.added',
    ])
  })

  it('refuses bad input with 400 and changes nothing', async () => {
    const notE164 = await add('415-555-0199')
    expect(notE164.status).toBe(400)
    expect(await notE164.json()).toMatchObject({ success: false, code: 'validation_error' })
    const notReal = await add('+10005550199')
    expect(notReal.status).toBe(400)
    expect(await notReal.json()).toMatchObject({ code: 'invalid_phone_number' })
    const unknown = await add('+14155550143', mine.key, { reason: 'x' })
    expect(unknown.status).toBe(400)
    expect(await listed(mine.key, '?phoneNumber=%2B14155550143')).toEqual([])
  })

  it("never shows or removes another organization's entries", async () => {
    expect((await add('+14155550151', theirs.key)).status).toBe(201)
    expect(await listed(mine.key, '?phoneNumber=%2B14155550151')).toEqual([])
    expect((await listed(mine.key)).map((entry) => entry.phoneNumber)).not.toContain('+14155550151')
    expect((await v1('/v1/do-not-call/+14155550151', { method: 'DELETE' })).status).toBe(404)
    expect(await listed(theirs.key, '?phoneNumber=%2B14155550151')).toHaveLength(1)
  })

  it('imports a CSV: counts added, already listed and invalid with their rows', async () => {
    await add('+14155550161')
    const response = await importCsv(
      'name,Phone\nAda,+14155550161\nBob,+14155550162\nCy,not-a-number\nDi,+14155550162\nEd,\nFay,+14155550163\n',
    )
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      success: true,
      data: {
        added: 2,
        alreadyListed: 2,
        invalid: 2,
        invalidRows: [
          { row: 4, phoneNumber: 'not-a-number' },
          { row: 6, phoneNumber: '' },
        ],
      },
    })
    expect(await listed(mine.key, '?phoneNumber=%2B14155550163')).toMatchObject([
      { source: 'import', sourceKind: 'import' },
    ])
    const audit = await (await v1('/v1/audit-log?action=do_not_call.imported')).json()
    expect(audit.data[0]).toMatchObject({ details: { mode: 'csv', added: 2, invalid: 2 } })
  })

  it('imports JSON, and refuses a CSV without a phone column or beyond the batch CSV limits', async () => {
    const json = await v1('/v1/do-not-call/import', {
      method: 'POST',
      json: { phoneNumbers: ['+14155550171', 'x', '+14155550172'] },
    })
    expect(await json.json()).toMatchObject({
      data: { added: 2, alreadyListed: 0, invalid: 1, invalidRows: [{ row: 2, phoneNumber: 'x' }] },
    })
    const noPhone = await importCsv('name,email\nAda,a@example.com\n')
    expect(noPhone.status).toBe(400)
    expect(await noPhone.json()).toMatchObject({ code: 'missing_phone_column' })
    const wide = await importCsv(`${Array.from({ length: 101 }, (_, i) => `c${i}`).join(',')}\n`)
    expect(wide.status).toBe(400)
    expect(await wide.json()).toMatchObject({ code: 'csv_too_many_columns' })
    const text = await server.request('/v1/do-not-call/import', {
      method: 'POST',
      token: mine.key,
      body: '+14155550173',
      headers: { 'content-type': 'text/plain' },
    })
    expect(text.status).toBe(415)
  })
})

describe('the list at campaign create and preview, and on POST /v1/calls', () => {
  it('create and preview skip listed numbers and count them', async () => {
    await add('+14155550181')
    const fields = { name: 'DNC', fromPhoneNumberId: mine.phoneNumberId }
    const csv = 'phone,name\n+14155550181,Listed\n+14155550182,Free\n'
    const preview = await server.request('/batch/preview', {
      method: 'POST',
      token: mine.key,
      json: { ...fields, contacts: [{ phone: '+14155550181' }, { phone: '+14155550182' }] },
    })
    expect(preview.status).toBe(200)
    expect((await preview.json()).data).toMatchObject({
      validContacts: 1,
      skipped: {
        total: 1,
        doNotCall: 1,
        rows: [{ row: 1, reason: 'do_not_call', phone: '+14155550181', duplicateOfRow: null }],
      },
    })
    const created = await createBatchCsv(server, mine.key, csv, fields)
    expect(created.status).toBe(201)
    expect(await created.json()).toMatchObject({ totalContacts: 1, skippedDoNotCall: 1 })
    // Another organization's list does not skip my contacts.
    const other = await createBatchJson(server, theirs.key, {
      name: 'Theirs',
      fromPhoneNumberId: theirs.phoneNumberId,
      contacts: [{ phone: '+14155550181' }],
    })
    expect(await other.json()).toMatchObject({ totalContacts: 1, skippedDoNotCall: 0 })
    const allListed = await createBatchJson(server, mine.key, {
      ...fields,
      contacts: [{ phone: '+14155550181' }],
    })
    expect(allListed.status).toBe(400)
    expect(await allListed.json()).toMatchObject({ code: 'no_valid_contacts' })
  })

  it('POST /v1/calls refuses a listed number with 409 do_not_call and opens no call', async () => {
    await add('+14155550191')
    const refused = await v1('/v1/calls', {
      method: 'POST',
      json: { fromPhoneNumberId: mine.phoneNumberId, to: '+14155550191' },
    })
    expect(refused.status).toBe(409)
    expect(await refused.json()).toMatchObject({ success: false, code: 'do_not_call' })
    const calls = await server.ctx.db
      .selectFrom('calls')
      .select('id')
      .where('phone_number', '=', '+14155550191')
      .execute()
    expect(calls).toEqual([])
  })
})
