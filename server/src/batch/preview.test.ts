import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBatchCsv, createBatchJson, createBatchTenant, validPhones } from '../../test/helpers/batch.ts'
import { setBalanceMicros } from '../../test/helpers/billing.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

let server: TestServer
let tenant: Awaited<ReturnType<typeof createBatchTenant>>

// ROLE=api: no worker takes a queued job, so what is created stays as create left it.
beforeAll(async () => {
  server = await startTestServer({ env: { ROLE: 'api' } })
  tenant = await createBatchTenant(server)
})
afterAll(() => server?.destroy())

const fields = () => ({ fromPhoneNumberId: tenant.phoneNumberId, name: 'Spring renewals' })

/** POST /batch/preview with the body /batch/create takes, as a form (CSV) or JSON. */
const previewCsv = (csv: string, extra: Record<string, string> = {}, key = tenant.key) => {
  const form = new FormData()
  for (const [name, value] of Object.entries({ ...fields(), ...extra })) form.append(name, value)
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'contacts.csv')
  return server.request('/batch/preview', { method: 'POST', token: key, body: form })
}
const previewJson = (body: Record<string, unknown>, key = tenant.key) =>
  server.request('/batch/preview', { method: 'POST', token: key, json: { ...fields(), ...body } })

const jobCount = async () =>
  Number(
    (
      await server.ctx.db
        .selectFrom('batch_jobs')
        .select((eb) => eb.fn.countAll().as('count'))
        .where('organization_id', '=', tenant.team.organizationId)
        .executeTakeFirstOrThrow()
    ).count,
  )

describe('POST /batch/preview', () => {
  it('CSV: the contacts with their fields, each skipped row and why, the estimate and the schedule; nothing created', async () => {
    const file = [
      'phone,name,plan',
      '+14155550111,Ada,gold',
      '415-555-0112,Bad Format,silver',
      ',No Phone,silver',
      '+14155550113,Too,Many,Cells',
      '+14155550111,Ada again,gold',
      '+14155550114,"Lovelace, Grace","multi',
      'line"',
      '+14155550115,,bronze',
    ].join('\n')
    const before = await jobCount()
    const response = await previewCsv(file, {
      concurrentCallLimit: '2',
      scheduledStartTime: '2031-07-01T09:30',
      timezone: 'america/new_york',
      callingWindow: JSON.stringify({ start: '09:00', end: '17:00', days: ['mon', 'tue'] }),
    })
    expect(response.status).toBe(200)
    const { success, data } = await response.json()
    expect(success).toBe(true)
    expect(data).toEqual({
      name: 'Spring renewals',
      validContacts: 3,
      contacts: [
        { row: 2, phone: '+14155550111', name: 'Ada', fields: { plan: 'gold' } },
        { row: 7, phone: '+14155550114', name: 'Lovelace, Grace', fields: { plan: 'multi\nline' } },
        { row: 8, phone: '+14155550115', name: null, fields: { plan: 'bronze' } },
      ],
      skipped: {
        total: 4,
        missingPhone: 1,
        invalidPhone: 1,
        wrongColumnCount: 1,
        duplicates: 1,
        doNotCall: 0,
        rows: [
          { row: 3, reason: 'invalid_phone', phone: '415-555-0112', duplicateOfRow: null },
          { row: 4, reason: 'missing_phone', phone: '', duplicateOfRow: null },
          { row: 5, reason: 'wrong_column_count', phone: '+14155550113', duplicateOfRow: null },
          { row: 6, reason: 'duplicate', phone: '+14155550111', duplicateOfRow: 2 },
        ],
      },
      // Three pipeline calls of 2 minutes at 0.0175 USD a minute; two at a time.
      estimate: {
        estimatedCost: '0.11',
        estimatedDuration: 'about 4 minutes',
        usdPerMinute: 0.0175,
        minutesPerCall: 2,
        balance: '1000.00',
        hasEnoughCredits: true,
      },
      schedule: {
        timezone: 'America/New_York',
        scheduledStartTime: '2031-07-01T13:30:00.000Z',
        localStartTime: '2031-07-01T09:30',
        callingWindow: { start: '09:00', end: '17:00', days: ['mon', 'tue'] },
      },
      phoneNumber: { id: tenant.phoneNumberId, number: '+14155550100', label: null },
      agent: { id: tenant.agent.id, name: tenant.agent.name, agentArchitecture: 'pipeline' },
      concurrentCallLimit: 2,
      maxAttempts: 3,
    })
    expect(await jobCount()).toBe(before)

    // Create, given the same request, agrees.
    const created = await createBatchCsv(server, tenant.key, file, {
      ...fields(),
      concurrentCallLimit: '2',
      scheduledStartTime: '2031-07-01T09:30',
      timezone: 'america/new_york',
    })
    expect(await created.json()).toMatchObject({
      totalContacts: 3,
      estimatedCost: '0.11',
      estimatedDuration: 'about 4 minutes',
      scheduledStartTime: '2031-07-01T13:30:00.000Z',
      message: 'Batch job created with 3 contacts; 3 invalid rows skipped; 1 duplicate removed',
    })
  })

  it('JSON: duplicates by their place in the list; a job that starts at once; at most 20 contacts listed', async () => {
    const phones = validPhones(25)
    const response = await previewJson({
      contacts: [...phones.map((phone, at) => ({ phone, seat: at })), { phone: phones[3], name: 'again' }],
    })
    expect(response.status).toBe(200)
    const { data } = await response.json()
    expect(data.validContacts).toBe(25)
    expect(data.contacts).toHaveLength(20)
    expect(data.contacts[0]).toEqual({ row: 1, phone: phones[0], name: null, fields: { seat: 0 } })
    expect(data.skipped).toEqual({
      total: 1,
      missingPhone: 0,
      invalidPhone: 0,
      wrongColumnCount: 0,
      duplicates: 1,
      doNotCall: 0,
      rows: [{ row: 26, reason: 'duplicate', phone: phones[3], duplicateOfRow: 4 }],
    })
    expect(data.schedule).toEqual({
      timezone: 'UTC',
      scheduledStartTime: null,
      localStartTime: null,
      callingWindow: null,
    })
    expect(data.estimate).toMatchObject({ estimatedCost: '0.88', estimatedDuration: 'about 10 minutes' })
  })

  it('answers every refusal exactly as create does, for the same request', async () => {
    const other = await createBatchTenant(server)
    const bare = await server.request('/v1/phone-numbers', {
      method: 'POST',
      token: tenant.key,
      json: { number: '+14155550199', sipTrunkId: 'ST_test' },
    })
    const bareId = (await bare.json()).data.id
    const cases: Array<{ csv: string; fields?: Record<string, string> }> = [
      { csv: 'phone\n"+14155550111' },
      { csv: '' },
      { csv: 'name\nAda' },
      { csv: 'phone\n4155550111' },
      { csv: 'phone\n+14155550111', fields: { timezone: 'Mars/Olympus' } },
      { csv: 'phone\n+14155550111', fields: { scheduledStartTime: '2001-01-01T09:00' } },
      { csv: 'phone\n+14155550111', fields: { fromPhoneNumberId: '01J00000000000000000000000' } },
      { csv: 'phone\n+14155550111', fields: { fromPhoneNumberId: other.phoneNumberId } },
      { csv: 'phone\n+14155550111', fields: { fromPhoneNumberId: bareId } },
      { csv: 'phone\n+14155550111', fields: { concurrentCallLimit: '51' } },
      { csv: 'phone\n+14155550111', fields: { surprise: 'yes' } },
    ]
    const before = await jobCount()
    const answers = []
    for (const { csv, fields: extra = {} } of cases) {
      const preview = await previewCsv(csv, extra)
      const create = await createBatchCsv(server, tenant.key, csv, { ...fields(), ...extra })
      const answer = { status: preview.status, body: await preview.json() }
      expect(answer).toEqual({ status: create.status, body: await create.json() })
      answers.push(`${answer.status} ${answer.body.code}`)
    }
    expect(answers).toEqual([
      '400 invalid_csv',
      '400 invalid_csv',
      '400 missing_phone_column',
      '400 no_valid_contacts',
      '400 invalid_timezone',
      '400 past_scheduled_time',
      '404 not_found',
      '404 not_found',
      '400 no_outbound_agent',
      '400 validation_error',
      '400 validation_error',
    ])
    // JSON mode's own refusal.
    const badPhone = { contacts: [{ phone: '+14155550111' }, { phone: 'nope' }] }
    const preview = await previewJson(badPhone)
    const create = await createBatchJson(server, tenant.key, { ...fields(), ...badPhone })
    expect({ status: preview.status, body: await preview.json() }).toEqual({
      status: create.status,
      body: await create.json(),
    })
    expect(await jobCount()).toBe(before)
  })

  it('says the balance does not cover the estimate where create refuses it (insufficient_credits)', async () => {
    const poor = await createBatchTenant(server, { creditsUsd: 0 })
    await setBalanceMicros(server, { organizationId: poor.team.organizationId, micros: 50_000 })
    const form = { fromPhoneNumberId: poor.phoneNumberId, name: 'Too dear' }
    const csv = `phone\n${validPhones(2).join('\n')}\n`
    const body = new FormData()
    for (const [name, value] of Object.entries(form)) body.append(name, value)
    body.append('file', new Blob([csv], { type: 'text/csv' }), 'contacts.csv')
    const preview = await server.request('/batch/preview', { method: 'POST', token: poor.key, body })
    expect(preview.status).toBe(200)
    expect((await preview.json()).data.estimate).toMatchObject({
      estimatedCost: '0.07',
      balance: '0.05',
      hasEnoughCredits: false,
    })
    const create = await createBatchCsv(server, poor.key, csv, form)
    expect(create.status).toBe(400)
    expect((await create.json()).code).toBe('insufficient_credits')
  })

  it('takes a member’s key like create does, and refuses a request without credentials', async () => {
    const response = await previewJson({ contacts: [{ phone: '+14155550111' }] }, tenant.keys.member)
    expect(response.status).toBe(200)
    const anonymous = await server.request('/batch/preview', {
      method: 'POST',
      json: { ...fields(), contacts: [{ phone: '+14155550111' }] },
    })
    expect(anonymous.status).toBe(401)
  })
})
