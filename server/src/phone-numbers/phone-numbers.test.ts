import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createTeam,
  createTeamWithKeys,
  makeAgent,
  secretKeyFor,
  type TeamKeys,
} from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

let server: TestServer
let team: Awaited<ReturnType<typeof createTeam>>
let keys: TeamKeys
let pipelineAgentId: string
let realtimeAgentId: string
let textAgentId: string

beforeAll(async () => {
  server = await startTestServer()
  ;({ team, keys } = await createTeamWithKeys(server))
  pipelineAgentId = (await makeAgent(server, team.owner, { agentArchitecture: 'pipeline' })).id
  realtimeAgentId = (await makeAgent(server, team.owner, { agentArchitecture: 'realtime' })).id
  textAgentId = (await makeAgent(server, team.owner, { agentArchitecture: 'text' })).id
})
afterAll(() => server?.destroy())

const v1 = (path: string, init: { method?: string; json?: unknown; key?: string } = {}) =>
  server.request(path, { method: init.method ?? 'GET', json: init.json, token: init.key ?? keys.owner })

const create = (json: Record<string, unknown>, key = keys.owner) =>
  v1('/v1/phone-numbers', { method: 'POST', json, key })

describe('/v1/phone-numbers', () => {
  it('registers, reads, lists, changes and deletes a number', async () => {
    const created = await create({
      number: '+14155550123',
      label: 'Sales line',
      outboundAgentId: pipelineAgentId,
      sipTrunkId: 'ST_sales',
    })
    expect(created.status).toBe(201)
    const { data } = await created.json()
    expect(data).toEqual({
      id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      number: '+14155550123',
      label: 'Sales line',
      outboundAgentId: pipelineAgentId,
      inboundAgentId: null,
      inbound: null,
      sipTrunkId: 'ST_sales',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })

    const read = await (await v1(`/v1/phone-numbers/${data.id}`)).json()
    expect(read.data.number).toBe('+14155550123')

    const list = await (await v1('/v1/phone-numbers?limit=1')).json()
    expect(list.pagination).toEqual({ page: 1, total: 1, hasNext: false })
    expect(list.data[0].id).toBe(data.id)

    const patched = await v1(`/v1/phone-numbers/${data.id}`, {
      method: 'PATCH',
      json: { label: null, outboundAgentId: realtimeAgentId },
    })
    expect(patched.status).toBe(200)
    expect((await patched.json()).data).toMatchObject({ label: null, outboundAgentId: realtimeAgentId })

    const deleted = await v1(`/v1/phone-numbers/${data.id}`, { method: 'DELETE' })
    expect(deleted.status).toBe(200)
    expect((await v1(`/v1/phone-numbers/${data.id}`)).status).toBe(404)
  })

  it('refuses a text agent as the outbound agent with a clear code', async () => {
    const response = await create({
      number: '+14155550124',
      outboundAgentId: textAgentId,
      sipTrunkId: 'ST_1',
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      success: false,
      error: 'Text agents cannot place phone calls; choose a pipeline or realtime agent',
      code: 'invalid_outbound_agent',
    })
  })

  it('refuses formatting characters and numbers that cannot exist', async () => {
    const formatted = await create({ number: '+1 (415) 555-0125', sipTrunkId: 'ST_1' })
    expect(formatted.status).toBe(400)
    expect((await formatted.json()).code).toBe('validation_error')
    const impossible = await create({ number: '+1415555012', sipTrunkId: 'ST_1' })
    expect(impossible.status).toBe(400)
    expect((await impossible.json()).code).toBe('invalid_phone_number')
  })

  it('keeps numbers unique per organization (409)', async () => {
    expect((await create({ number: '+442079460958', sipTrunkId: 'ST_1' })).status).toBe(201)
    const again = await create({ number: '+442079460958', sipTrunkId: 'ST_2' })
    expect(again.status).toBe(409)
    expect((await again.json()).code).toBe('phone_number_taken')
  })

  it('lets members read but not manage numbers', async () => {
    const response = await create({ number: '+14155550126', sipTrunkId: 'ST_1' }, keys.member)
    expect(response.status).toBe(403)
    expect((await v1('/v1/phone-numbers', { key: keys.member })).status).toBe(200)
  })

  it("answers 404 for another organization's numbers and agents", async () => {
    const other = await createTeam(server)
    const otherKey = await secretKeyFor(server, other.owner)
    const otherAgent = await makeAgent(server, other.owner, { agentArchitecture: 'pipeline' })
    const mine = (await (await create({ number: '+14155550127', sipTrunkId: 'ST_1' })).json()).data

    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const response = await v1(`/v1/phone-numbers/${mine.id}`, {
        method,
        key: otherKey,
        ...(method === 'PATCH' ? { json: { label: 'x' } } : {}),
      })
      expect(response.status).toBe(404)
    }
    const foreignAgent = await create({
      number: '+14155550128',
      outboundAgentId: otherAgent.id,
      sipTrunkId: 'ST_1',
    })
    expect(foreignAgent.status).toBe(404)
    // The same number may belong to two organizations.
    expect((await create({ number: '+14155550127', sipTrunkId: 'ST_1' }, otherKey)).status).toBe(201)
  })
})
