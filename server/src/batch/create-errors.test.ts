import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBatchCsv, createBatchJson, createBatchTenant, validPhones } from '../../test/helpers/batch.ts'
import { makeAgent } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { insertPhoneNumber } from '../phone-numbers/store.ts'
import { parseCsvStream } from './create-csv.ts'

let server: TestServer
let tenant: Awaited<ReturnType<typeof createBatchTenant>>

// ROLE=api: no worker takes the queued jobs, so these tests see create's work only.
beforeAll(async () => {
  server = await startTestServer({ env: { ROLE: 'api' } })
  tenant = await createBatchTenant(server)
})
afterAll(() => server?.destroy())

const json = (body: Record<string, unknown>) =>
  createBatchJson(server, tenant.key, {
    fromPhoneNumberId: tenant.phoneNumberId,
    name: 'Errors',
    contacts: [{ phone: '+14155550111' }],
    ...body,
  })
const csv = (file: string, fields: Record<string, string> = {}) =>
  createBatchCsv(server, tenant.key, file, {
    fromPhoneNumberId: tenant.phoneNumberId,
    name: 'Errors',
    ...fields,
  })

const expectError = async (response: Response, status: number, code: string, detail?: RegExp) => {
  const body = await response.json()
  expect({ status: response.status, code: body.code }).toEqual({ status, code })
  // Validation errors also list their issues, each naming its field.
  expect(Object.keys(body).sort()).toEqual(
    code === 'validation_error' ? ['code', 'detail', 'issues'] : ['code', 'detail'],
  )
  if (detail) expect(body.detail).toMatch(detail)
}

describe('POST /batch/create refusals (smallest input for each code)', () => {
  it('invalid_csv: an unclosed quote', async () => {
    await expectError(await csv('phone\n"+14155550111'), 400, 'invalid_csv', /Quote Not Closed/)
  })

  it('invalid_csv: an empty file', async () => {
    await expectError(await csv(''), 400, 'invalid_csv', /empty/)
  })

  it('missing_phone_column', async () => {
    await expectError(await csv('name\nAda'), 400, 'missing_phone_column')
  })

  it('no_valid_contacts: every CSV row invalid, or an empty JSON list', async () => {
    await expectError(await csv('phone\n4155550111'), 400, 'no_valid_contacts', /all 1 rows were invalid/)
    await expectError(await json({ contacts: [] }), 400, 'no_valid_contacts')
  })

  it('invalid_phone_format names the first bad JSON index', async () => {
    const response = await json({
      contacts: [{ phone: '+14155550111' }, { phone: '+1 415 555 0112' }, { phone: 'nope' }],
    })
    await expectError(response, 400, 'invalid_phone_format', /^contacts\[1\]\.phone/)
    await expectError(
      await json({ contacts: [{ name: 'no phone' }] }),
      400,
      'invalid_phone_format',
      /contacts\[0\]/,
    )
  })

  it('too_many_contacts in JSON mode: 10,001 unique valid phones', async () => {
    const contacts = validPhones(10_001).map((phone) => ({ phone }))
    await expectError(await json({ contacts }), 400, 'too_many_contacts', /^10001 unique valid contacts/)
  })

  it('too_many_contacts for a CSV longer than 50,000 rows, before any row is checked', async () => {
    await expectError(
      await csv(`phone\n${'x\n'.repeat(50_001)}`),
      400,
      'too_many_contacts',
      /more than 50000 rows/,
    )
  })

  it('invalid_timezone', async () => {
    await expectError(await json({ timezone: 'Mars/Olympus' }), 400, 'invalid_timezone', /Mars\/Olympus/)
  })

  it('past_scheduled_time, also when read in the timezone', async () => {
    await expectError(await json({ scheduledStartTime: '2001-01-01T00:00:00Z' }), 400, 'past_scheduled_time')
    await expectError(
      await csv('phone\n+14155550111', { scheduledStartTime: '2001-01-01T09:00', timezone: 'Asia/Karachi' }),
      400,
      'past_scheduled_time',
    )
  })

  it('404 for an unknown phone number and for another organization’s', async () => {
    await expectError(
      await json({ fromPhoneNumberId: '01J00000000000000000000000' }),
      404,
      'not_found',
      /Phone number/,
    )
    const other = await createBatchTenant(server)
    await expectError(await json({ fromPhoneNumberId: other.phoneNumberId }), 404, 'not_found')
  })

  it('no_outbound_agent says whether the agent is missing or a text agent', async () => {
    const bare = await server.request('/v1/phone-numbers', {
      method: 'POST',
      token: tenant.key,
      json: { number: '+14155550199', sipTrunkId: 'ST_test' },
    })
    const bareId = (await bare.json()).data.id
    await expectError(
      await json({ fromPhoneNumberId: bareId }),
      400,
      'no_outbound_agent',
      /no outbound agent assigned/,
    )

    // The API refuses text agents on numbers; a row written before that rule existed still gets a clear answer.
    const textAgent = await makeAgent(server, tenant.team.owner, { agentArchitecture: 'text' })
    const legacy = await insertPhoneNumber(server.ctx.db, {
      id: '01J00000000000000000000001',
      organizationId: tenant.team.organizationId,
      fields: { number: '+14155550198', label: null, outboundAgentId: textAgent.id, sipTrunkId: 'ST_test' },
    })
    await expectError(
      await json({ fromPhoneNumberId: legacy.id }),
      400,
      'no_outbound_agent',
      /is a text agent/,
    )
  })

  it('insufficient_credits (400) when the balance does not cover the estimate', async () => {
    const poor = await createBatchTenant(server, { creditsUsd: 0.03 })
    const response = await createBatchJson(server, poor.key, {
      fromPhoneNumberId: poor.phoneNumberId,
      name: 'Too dear',
      contacts: [{ phone: '+14155550111' }],
    })
    await expectError(response, 400, 'insufficient_credits', /0\.04 USD/)
  })

  it('field bounds: name, description, concurrentCallLimit, maxAttempts, callingWindow', async () => {
    await expectError(await json({ name: 'x'.repeat(201) }), 400, 'validation_error', /^name/)
    await expectError(await json({ description: 'x'.repeat(1001) }), 400, 'validation_error', /^description/)
    await expectError(await json({ concurrentCallLimit: 51 }), 400, 'validation_error', /concurrentCallLimit/)
    await expectError(await json({ concurrentCallLimit: 0 }), 400, 'validation_error', /concurrentCallLimit/)
    await expectError(await json({ maxAttempts: 11 }), 400, 'validation_error', /maxAttempts/)
    await expectError(await csv('phone\n+14155550111', { maxAttempts: 'three' }), 400, 'validation_error')
    await expectError(
      await json({ callingWindow: { start: '9:00', end: '17:00', days: ['mon'] } }),
      400,
      'validation_error',
      /HH:MM/,
    )
    await expectError(
      await json({ callingWindow: { start: '09:00', end: '17:00', days: ['funday'] } }),
      400,
      'validation_error',
    )
  })

  it('a file over 10 MiB answers 413; a body that is neither form nor JSON 415', async () => {
    // Under the row limit (rows of 244 bytes), over the size limit.
    const big = `phone,note\n${`+14155550111,${'n'.repeat(230)}\n`.repeat(Math.ceil((10 * 1024 * 1024) / 244) + 1)}`
    await expectError(await csv(big), 413, 'payload_too_large')
    const text = await server.request('/batch/create', {
      method: 'POST',
      token: tenant.key,
      headers: { 'content-type': 'text/csv' },
      body: 'phone\n+14155550111',
    })
    await expectError(text, 415, 'unsupported_media_type')
  })

  it('csv limits: columns, header size, row size and cell size, each with its code', async () => {
    const wide = ['phone', ...Array.from({ length: 100 }, (_, i) => `c${i}`)].join(',')
    await expectError(await csv(`${wide}\n+14155550111`), 400, 'csv_too_many_columns', /header/)
    await expectError(await csv(`phone\n${','.repeat(600_000)}`), 400, 'csv_too_many_columns', /row/)
    // A row past the size limit is refused while it is still being read.
    await expectError(await csv(`phone\n"${'x'.repeat(70_000)}`), 400, 'csv_row_too_large')
    const longNames = Array.from({ length: 50 }, (_, i) => `${'h'.repeat(400)}${i}`)
    await expectError(await csv(`phone,${longNames.join(',')}\n+1`), 400, 'csv_header_too_large')
    await expectError(await csv(`phone,note\n+14155550111,${'n'.repeat(5000)}`), 400, 'csv_field_too_large')
    await expectError(await csv(`phone\n+1,${'x,'.repeat(120)}`), 400, 'csv_too_many_columns', /row/)
  })

  it('takes a 10 MiB file of the widest allowed rows (npm run bench -- abuse times the event loop meanwhile)', async () => {
    const header = ['phone', ...Array.from({ length: 99 }, (_, i) => `c${i}`)].join(',')
    const row = `+14155550111,${Array.from({ length: 99 }, () => 'abcdefghi').join(',')}\n`
    const file = `${header}\n${row.repeat(Math.floor((10 * 1024 * 1024 - 2000) / row.length))}`
    const response = await csv(file)
    expect(response.status).toBe(201)
  })

  it('parses a file as it arrives and refuses it at the record that breaks a limit, the rest unread', async () => {
    // 1,000 chunks arriving one a turn, as a request's do; the first is a header one column too wide.
    let pulled = 0
    const stream = new Readable({
      read() {
        pulled += 1
        const chunk =
          pulled === 1
            ? `${Array.from({ length: 101 }, (_, i) => `c${i}`).join(',')}\n`
            : pulled <= 1000
              ? '+14155550111\n'.repeat(1000)
              : null
        setImmediate(() => this.push(chunk))
      },
    })
    await expect(parseCsvStream(stream)).rejects.toMatchObject({ code: 'csv_too_many_columns' })
    expect(pulled).toBeLessThan(20)
  })

  it('401 without a secret key, in the batch error shape', async () => {
    const response = await server.request('/batch/create', { method: 'POST', json: {} })
    expect(response.status).toBe(401)
    expect(Object.keys(await response.json()).sort()).toEqual(['code', 'detail'])
  })
})
