import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBatchCsv, createBatchJson, createBatchTenant, validPhones } from '../../test/helpers/batch.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import * as store from './store.ts'

let server: TestServer
let tenant: Awaited<ReturnType<typeof createBatchTenant>>

// ROLE=api: no worker takes the queued jobs, so these tests see create's work only.
beforeAll(async () => {
  server = await startTestServer({ env: { ROLE: 'api' } })
  tenant = await createBatchTenant(server)
})
afterAll(() => server?.destroy())

const fields = () => ({ fromPhoneNumberId: tenant.phoneNumberId, name: 'Spring renewals' })
const contactsOf = async (batchJobId: string) =>
  (await store.listContacts(server.ctx.db, { batchJobId, offset: 0, limit: 20_000 })).contacts
const queuedStartOf = async (batchJobId: string) => {
  const { rows } = await sql<{ name: string; next_run_at: Date }>`
    select name, next_run_at from agenda_jobs where data->>'batchJobId' = ${batchJobId}`.execute(
    server.ctx.db,
  )
  return rows
}

describe('POST /batch/create, JSON mode', () => {
  it('creates a pending job, stores contacts and custom fields as given, and queues batch.start now', async () => {
    const before = Date.now()
    const response = await createBatchJson(server, tenant.key, {
      ...fields(),
      description: 'Renewal reminders',
      concurrentCallLimit: 2,
      contacts: [
        {
          phone: '+14155550111',
          name: 'Ada',
          plan: 'gold',
          visits: 3,
          tags: ['vip'],
          timezone: 'America/Chicago',
        },
        { phone: '+442079460958', note: ' spaced ' },
        { phone: '+14155550111', name: 'Ada again' },
      ],
    })
    expect(response.status).toBe(201)
    const body = await response.json()
    expect(body).toEqual({
      success: true,
      batchJobId: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      totalContacts: 2,
      estimatedDuration: 'about 2 minutes',
      estimatedCost: '0.07',
      status: 'pending',
      scheduledStartTime: null,
      message: 'Batch job created with 2 contacts; 1 duplicate removed',
      skippedDoNotCall: 0,
    })

    const contacts = await contactsOf(body.batchJobId)
    expect(
      contacts.map(({ position, phone, name, fields, timeZone }) => ({
        position,
        phone,
        name,
        fields,
        timeZone,
      })),
    ).toEqual([
      {
        position: 0,
        phone: '+14155550111',
        name: 'Ada',
        fields: { plan: 'gold', visits: 3, tags: ['vip'], timezone: 'America/Chicago' },
        timeZone: 'America/Chicago',
      },
      // +44 has one zone; +1 (several) without a timezone field would be null.
      {
        position: 1,
        phone: '+442079460958',
        name: null,
        fields: { note: ' spaced ' },
        timeZone: 'Europe/London',
      },
    ])
    const job = await store.findJobById(server.ctx.db, body.batchJobId)
    expect(job).toMatchObject({
      status: 'pending',
      agentId: tenant.agent.id,
      concurrentCallLimit: 2,
      maxAttempts: 3,
      timezone: 'UTC',
      description: 'Renewal reminders',
      estimatedCostMicros: 70_000,
    })
    const [queued] = await queuedStartOf(body.batchJobId)
    expect(queued?.name).toBe('batch.start')
    expect(new Date(queued?.next_run_at ?? 0).getTime()).toBeGreaterThanOrEqual(before - 1000)
    expect(new Date(queued?.next_run_at ?? 0).getTime()).toBeLessThanOrEqual(Date.now() + 1000)
  })

  it('creates a scheduled job at the UTC instant of a wall-clock time in its timezone, queued for then', async () => {
    const response = await createBatchJson(server, tenant.key, {
      ...fields(),
      scheduledStartTime: '2031-07-01T09:30',
      timezone: 'america/new_york',
      callingWindow: { start: '09:00', end: '17:30', days: ['mon', 'tue', 'wed'] },
      contacts: [{ phone: '+14155550111' }],
    })
    expect(response.status).toBe(201)
    const body = await response.json()
    expect(body).toMatchObject({ status: 'scheduled', scheduledStartTime: '2031-07-01T13:30:00.000Z' })
    const job = await store.findJobById(server.ctx.db, body.batchJobId)
    expect(job).toMatchObject({
      status: 'scheduled',
      timezone: 'America/New_York',
      callingWindow: { start: '09:00', end: '17:30', days: ['mon', 'tue', 'wed'] },
    })
    expect(job?.scheduledStartTime?.toISOString()).toBe('2031-07-01T13:30:00.000Z')
    const [queued] = await queuedStartOf(body.batchJobId)
    expect(new Date(queued?.next_run_at ?? 0).toISOString()).toBe('2031-07-01T13:30:00.000Z')
  })

  it('keeps a name that is not text among the fields, as given', async () => {
    const response = await createBatchJson(server, tenant.key, {
      ...fields(),
      contacts: [{ phone: '+14155550111', name: 42, vip: true }],
    })
    const [contact] = await contactsOf((await response.json()).batchJobId)
    expect(contact).toMatchObject({ name: null, fields: { name: 42, vip: true } })
  })

  it('keeps the offset of a scheduled time that has one', async () => {
    const response = await createBatchJson(server, tenant.key, {
      ...fields(),
      scheduledStartTime: '2031-01-15T09:00:00+05:00',
      timezone: 'Europe/London',
      contacts: [{ phone: '+14155550111' }],
    })
    expect((await response.json()).scheduledStartTime).toBe('2031-01-15T04:00:00.000Z')
  })
})

describe('POST /batch/create, CSV mode', () => {
  it('reads BOM, CRLF, quoted fields and any-case headers; skips and counts bad rows; removes duplicates', async () => {
    const file = [
      '\ufeffPHONE,Name,Company,Notes',
      '+14155550111,"Lovelace, Ada","Analytical ""Engines""",first',
      '+14155550112,Grace,Navy,"line one',
      'line two"',
      '415-555-0113,Bad Format,x,y',
      '+14155550114,Too,Many,Cells,Here',
      '+14155550111,Ada Dup,x,y',
      '+14155550115,,Acme,5" screen',
      '',
    ].join('\r\n')
    const response = await createBatchCsv(server, tenant.key, file, { ...fields(), concurrentCallLimit: '1' })
    expect(response.status).toBe(201)
    const body = await response.json()
    expect(body).toMatchObject({
      totalContacts: 3,
      estimatedDuration: 'about 6 minutes',
      estimatedCost: '0.11',
      status: 'pending',
      message: 'Batch job created with 3 contacts; 2 invalid rows skipped; 1 duplicate removed',
    })
    const contacts = await contactsOf(body.batchJobId)
    expect(contacts.map(({ phone, name, fields }) => ({ phone, name, fields }))).toEqual([
      {
        phone: '+14155550111',
        name: 'Lovelace, Ada',
        fields: { Company: 'Analytical "Engines"', Notes: 'first' },
      },
      { phone: '+14155550112', name: 'Grace', fields: { Company: 'Navy', Notes: 'line one\r\nline two' } },
      { phone: '+14155550115', name: null, fields: { Company: 'Acme', Notes: '5" screen' } },
    ])
  })

  it('takes `Phone` and a timezone column, and the numeric fields of a form', async () => {
    const file = 'Phone,TimeZone,visits\n+14155550111,Asia/Karachi,07\n+14155550112,not/a-zone,1\n'
    const response = await createBatchCsv(server, tenant.key, file, {
      ...fields(),
      maxAttempts: '5',
      callingWindow: JSON.stringify({ start: '22:00', end: '06:00', days: ['sat', 'sun'] }),
    })
    expect(response.status).toBe(201)
    const body = await response.json()
    const contacts = await contactsOf(body.batchJobId)
    expect(contacts.map((c) => [c.timeZone, c.fields])).toEqual([
      ['Asia/Karachi', { TimeZone: 'Asia/Karachi', visits: '07' }],
      [null, { TimeZone: 'not/a-zone', visits: '1' }],
    ])
    expect(await store.findJobById(server.ctx.db, body.batchJobId)).toMatchObject({
      maxAttempts: 5,
      callingWindow: { start: '22:00', end: '06:00', days: ['sat', 'sun'] },
    })
  })

  it('accepts 10,000 unique contacts and refuses 10,001 (duplicates do not count)', async () => {
    const phones = validPhones(10_001)
    const accepted = await createBatchCsv(
      server,
      tenant.key,
      `phone,name\n${phones
        .slice(0, 10_000)
        .map((phone, i) => `${phone},Person ${i}`)
        .join('\n')}\n${phones[0]},dup\n`,
      { ...fields(), concurrentCallLimit: '50' },
    )
    expect(accepted.status).toBe(201)
    const body = await accepted.json()
    expect(body).toMatchObject({
      totalContacts: 10_000,
      estimatedCost: '350.00',
      estimatedDuration: 'about 6.5 hours',
    })
    expect(await store.countContacts(server.ctx.db, body.batchJobId)).toMatchObject({
      total: 10_000,
      pending: 10_000,
    })

    const refused = await createBatchCsv(server, tenant.key, `phone\n${phones.join('\n')}\n`, fields())
    expect(refused.status).toBe(400)
    expect(await refused.json()).toEqual({
      detail: 'The file holds more than 10000 unique valid phone numbers; a job takes at most 10000 contacts',
      code: 'too_many_contacts',
    })
  })

  it('replays an Idempotency-Key for the same file and refuses it for another file', async () => {
    const headers = { 'idempotency-key': 'batch-upload-1' }
    const first = await createBatchCsv(server, tenant.key, 'phone\n+14155550111\n', fields(), headers)
    const again = await createBatchCsv(server, tenant.key, 'phone\n+14155550111\n', fields(), headers)
    expect(first.status).toBe(201)
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect((await again.json()).batchJobId).toBe((await first.json()).batchJobId)
    const other = await createBatchCsv(server, tenant.key, 'phone\n+14155550112\n', fields(), headers)
    expect(other.status).toBe(409)
  })
})
