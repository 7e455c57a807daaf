import { FUNCTION_TEST_BODY_MAX_CHARS, FUNCTION_TESTS_PER_MINUTE } from '@parley/shared'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type HttpTarget, respondJson, startHttpTarget } from '../../test/helpers/http-target.ts'
import { createTeamWithKeys, makeAgent, type TeamKeys } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { getBalanceMicros } from '../billing/service.ts'

/**
 * The test call: one stored function, called once with the owner's sample arguments through the
 * executor chat uses, against a real endpoint on loopback (allowed by OUTBOUND_ALLOW_HOSTS, as in
 * the other function tests; every other address must be public https).
 */
let server: TestServer
let customer: HttpTarget
let team: Awaited<ReturnType<typeof createTeamWithKeys>>['team']
let keys: TeamKeys

beforeAll(async () => {
  customer = await startHttpTarget((request, response) => {
    if (request.url.startsWith('/missing')) return respondJson(response, 404, { error: 'no such order' })
    if (request.url.startsWith('/long')) return respondJson(response, 200, { notes: 'n'.repeat(6000) })
    if (request.url.startsWith('/huge')) return respondJson(response, 200, { blob: 'x'.repeat(1_100_000) })
    if (request.url.startsWith('/text')) {
      response.writeHead(200, { 'content-type': 'text/plain' })
      return response.end('shipped')
    }
    respondJson(response, 200, { status: 'shipped', echo: JSON.parse(request.body || '{}') })
  })
  server = await startTestServer({ env: { OUTBOUND_ALLOW_HOSTS: customer.hostAndPort } })
  ;({ team, keys } = await createTeamWithKeys(server))
})
afterAll(async () => {
  await server?.destroy()
  await customer?.close()
})

const lookupOrder = (path = '/orders') => ({
  name: 'lookup_order',
  label: 'Look up an order',
  description: 'Finds an order by its number',
  endpoint: `${customer.origin}${path}`,
  headers: { 'x-shop-token': 'secret-shop-token' },
  parameters: {
    type: 'object',
    properties: { orderNumber: { type: 'string' }, verbose: { type: 'boolean', default: false } },
    required: ['orderNumber'],
  },
})

/** A public agent of the team's owner (every member sees it) with one function at `path`. */
const agentWithFunction = async (path?: string) => {
  const agent = await makeAgent(server, team.owner, { mode: 'public' })
  const created = await server.request(`/api/custom-functions/${agent.id}`, {
    method: 'POST',
    json: lookupOrder(path),
    token: keys.owner,
  })
  expect(created.status).toBe(201)
  const fn = (await created.json()) as { id: string }
  return { agentId: agent.id, functionId: fn.id }
}

const testCall = (
  { agentId, functionId }: { agentId: string; functionId: string },
  json: unknown = { arguments: { orderNumber: 'A17' } },
  token = keys.owner,
) => server.request(`/api/custom-functions/${agentId}/${functionId}/test`, { method: 'POST', json, token })

const received = (path: string) => customer.received.filter((request) => request.url.startsWith(path))

describe('a custom function test call', () => {
  it("answers the endpoint's status, body and duration, sent as chat sends it, and spends no credits", async () => {
    const ids = await agentWithFunction()
    const before = await getBalanceMicros(server.ctx.db, team.organizationId)
    const response = await testCall(ids)
    expect(response.status).toBe(200)
    const answer = await response.json()
    expect(answer).toEqual({
      ok: true,
      status: 200,
      durationMs: expect.any(Number),
      body: JSON.stringify({ status: 'shipped', echo: { orderNumber: 'A17', verbose: false } }),
      truncated: false,
      error: null,
    })
    expect(answer.durationMs).toBeGreaterThanOrEqual(0)
    const request = received('/orders').at(-1)
    expect(request).toMatchObject({ method: 'POST', headers: { 'x-shop-token': 'secret-shop-token' } })
    expect(await getBalanceMicros(server.ctx.db, team.organizationId)).toBe(before)
  })

  it("checks the arguments against the function's parameters before any request", async () => {
    const ids = await agentWithFunction('/checked')
    const missing = await testCall(ids, { arguments: { verbose: true } })
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({
      error: "arguments must have required property 'orderNumber'",
      code: 'validation_error',
    })
    const mistyped = await testCall(ids, { arguments: { orderNumber: 17 } })
    expect(mistyped.status).toBe(400)
    expect((await mistyped.json()).error).toBe('arguments/orderNumber must be string')
    const notAnObject = await testCall(ids, { arguments: ['A17'] })
    expect(notAnObject.status).toBe(400)
    expect((await notAnObject.json()).issues).toEqual([
      { field: 'arguments', message: 'arguments must be a JSON object' },
    ])
    const unknownField = await testCall(ids, { arguments: { orderNumber: 'A17' }, dryRun: true })
    expect(unknownField.status).toBe(400)
    expect(received('/checked')).toEqual([])
  })

  it('answers what went wrong in words: an error status, a body that is not JSON, one too large', async () => {
    const notFound = await (await testCall(await agentWithFunction('/missing'))).json()
    expect(notFound).toMatchObject({
      ok: false,
      status: 404,
      body: '{"error":"no such order"}',
      error: 'The function endpoint answered HTTP 404: {"error":"no such order"}',
    })
    const text = await (await testCall(await agentWithFunction('/text'))).json()
    expect(text).toMatchObject({
      ok: false,
      status: 200,
      body: 'shipped',
      error: 'The function endpoint did not answer with JSON',
    })
    const huge = await (await testCall(await agentWithFunction('/huge'))).json()
    expect(huge).toMatchObject({
      ok: false,
      status: null,
      body: null,
      error: "The function endpoint's response is too large (over 1 MiB)",
    })
  })

  it('shows a long body cut to its first characters, and says so', async () => {
    const long = await (await testCall(await agentWithFunction('/long'))).json()
    expect(long).toMatchObject({ ok: true, status: 200, truncated: true })
    expect(long.body).toHaveLength(FUNCTION_TEST_BODY_MAX_CHARS)
    expect(long.body.startsWith('{"notes":"nnn')).toBe(true)
  })

  it('keeps to the outbound rules: a stored endpoint that now points at a private address is refused', async () => {
    const ids = await agentWithFunction()
    await sql`update custom_functions set endpoint = 'https://10.0.0.1/orders' where id = ${ids.functionId}`.execute(
      server.ctx.db,
    )
    const answer = await (await testCall(ids)).json()
    expect(answer).toMatchObject({
      ok: false,
      status: null,
      error: 'The function endpoint is not allowed: it points to a private or reserved address',
    })
  })

  it('is for owners and admins; other agents, functions and organizations are not found', async () => {
    const ids = await agentWithFunction()
    expect((await testCall(ids, undefined, keys.admin)).status).toBe(200)
    const member = await testCall(ids, undefined, keys.member)
    expect(member.status).toBe(403)
    expect((await member.json()).error).toBe('Only owners and admins can test-call custom functions')

    const other = await agentWithFunction()
    expect((await testCall({ agentId: other.agentId, functionId: ids.functionId })).status).toBe(404)
    expect((await testCall({ agentId: ids.agentId, functionId: 'no-such-function' })).status).toBe(404)

    const stranger = await createTeamWithKeys(server)
    const foreign = await testCall(ids, undefined, stranger.keys.owner)
    expect(foreign.status).toBe(404)
    expect((await foreign.json()).error).toBe('Agent not found')
  })

  it(`allows ${FUNCTION_TESTS_PER_MINUTE} test calls a minute per organization, then 429 with Retry-After`, async () => {
    const { team: busy, keys: busyKeys } = await createTeamWithKeys(server)
    const agent = await makeAgent(server, busy.owner)
    const created = await server.request(`/api/custom-functions/${agent.id}`, {
      method: 'POST',
      json: lookupOrder('/busy'),
      token: busyKeys.owner,
    })
    const ids = { agentId: agent.id, functionId: ((await created.json()) as { id: string }).id }
    for (let call = 0; call < FUNCTION_TESTS_PER_MINUTE; call++)
      expect((await testCall(ids, undefined, busyKeys.admin)).status).toBe(200)
    const refused = await testCall(ids, undefined, busyKeys.owner)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/)
    expect((await refused.json()).code).toBe('rate_limited')
    expect(received('/busy')).toHaveLength(FUNCTION_TESTS_PER_MINUTE)
  })
})
