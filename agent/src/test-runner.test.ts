import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { inference, initializeLogger, log } from '@livekit/agents'
import type { TestRun } from '@parley/shared'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { type FakeLlm, startFakeLlm } from '../../server/test/helpers/fake-llm.ts'
import { type HttpTarget, respondJson, startHttpTarget } from '../../server/test/helpers/http-target.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../server/test/helpers/organization.ts'
import { type Parley, startParley } from '../test/helpers/parley.ts'
import { createTestRunApi, runClaimedTestCases, type TestRunApi } from './test-runner.ts'

/**
 * Voice agents' test runs executed by the worker-side runner: a real Parley server queues the run
 * (POST /v1/agents/{id}/test-runs) and hands out its cases through the worker endpoints; the
 * runner drives the agent's own session in the framework's text mode with the real OpenAI plugin
 * against the suite's fake LLM (which also plays the judge for the server); custom functions are
 * answered by the test's stubs, never the real endpoint. One server and one model for the file.
 */

initializeLogger({ pretty: false, level: 'fatal' })

let parley: Parley
let llm: FakeLlm
let shop: HttpTarget
let api: TestRunApi
let otherKey: string
let other: Awaited<ReturnType<typeof createTeam>>
const vad = new inference.VAD()

beforeAll(async () => {
  llm = await startFakeLlm()
  shop = await startHttpTarget((_request, response) =>
    respondJson(response, 200, { status: 'REAL ENDPOINT' }),
  )
  parley = await startParley({
    env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'sk-fake', OUTBOUND_ALLOW_HOSTS: shop.hostAndPort },
  })
  api = createTestRunApi({ apiUrl: parley.server.url, workerToken: parley.workerToken })
  other = await createTeam(parley.server)
  otherKey = await secretKeyFor(parley.server, other.owner)
}, 60_000)

afterEach(() => llm.reset())

afterAll(async () => {
  await parley?.close()
  await llm?.close()
  await shop?.close()
})

const request = async (
  path: string,
  { method = 'GET', json, key = parley.key }: { method?: string; json?: unknown; key?: string } = {},
) => {
  const response = await parley.server.request(path, {
    method,
    headers: { 'x-api-key': key },
    ...(json === undefined ? {} : { json }),
  })
  return {
    status: response.status,
    body: (await response.json()) as { data: TestRun } & Record<string, unknown>,
  }
}

/** A voice agent with end_call, a transfer destination and a custom function whose real endpoint is the shop. */
const makeShopAgent = async () => {
  const agent = await parley.makeVoiceAgent({
    greetingType: 'userFirst',
    systemPrompt: 'You are the shop’s phone assistant.',
    transferDestinations: [
      { name: 'Sales', destination: '+14155550199', whenToUse: 'The caller wants to buy', mode: 'cold' },
    ],
  })
  const created = await parley.server.request(`/api/custom-functions/${agent.id}`, {
    method: 'POST',
    token: parley.key,
    json: {
      name: 'lookup_order',
      label: 'Look up an order',
      description: 'Finds an order by its number',
      endpoint: `${shop.origin}/orders`,
      headers: { Authorization: 'Bearer customer-secret' },
      parameters: {
        type: 'object',
        properties: { orderNumber: { type: 'string' } },
        required: ['orderNumber'],
      },
    },
  })
  expect(created.status).toBe(201)
  const fn = (await created.json()) as { id: string }
  const put = await parley.server.request(`/v1/agents/${agent.id}`, {
    method: 'PUT',
    headers: { 'x-api-key': parley.key },
    json: { functionCallingEnabled: true, enabledFunctions: ['end_call'], enabledCustomFunctions: [fn.id] },
  })
  expect(put.status).toBe(200)
  return Object.assign(agent, { functionId: fn.id })
}

const createTest = async (agentId: string, definition: Record<string, unknown>) => {
  const created = await request(`/v1/agents/${agentId}/tests`, { method: 'POST', json: definition })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  return created.body.data as unknown as { id: string }
}

const runnerOptions = () => ({ api, vad, logger: log(), allowHosts: [shop.hostAndPort] })

describe('a voice agent’s test run, run by the voice worker', { timeout: 60_000 }, () => {
  it('runs the agent’s own session in text mode: stubbed function, must-call, end; checked, judged and billed by the server', async () => {
    const agent = await makeShopAgent()
    const test = await createTest(agent.id, {
      name: 'Finds an order',
      visitor: { kind: 'script', turns: ['Where is order A17?', 'Thanks, that is all.'] },
      expectations: [
        { type: 'must_call', function: 'lookup_order', arguments: { orderNumber: 'A17' } },
        { type: 'must_say', text: 'shipped' },
        { type: 'must_end' },
        { type: 'judge', criterion: 'The agent gives the order status' },
      ],
      stubs: { lookup_order: { status: 'shipped' } },
    })
    const started = await request(`/v1/agents/${agent.id}/test-runs`, { method: 'POST', json: {} })
    expect(started.status).toBe(202)
    expect(started.body.data).toMatchObject({ status: 'queued', runner: 'voice_worker', total: 1 })

    llm.queue(
      {
        toolCalls: [{ name: 'lookup_order', args: ['{"orderNumber":', '"A17"}'] }],
        usage: { input: 100, output: 10 },
      },
      { text: ['Your order A17 has shipped.'], usage: { input: 120, output: 8 } },
      { toolCalls: [{ name: 'end_call', args: ['{}'] }], usage: { input: 140, output: 5 } },
      // The server's judge, once the worker reported the conversation.
      { text: ['{"passed": true, "reason": "It gave the status"}'], usage: { input: 60, output: 12 } },
    )
    expect(await runClaimedTestCases(runnerOptions())).toBe(1)

    const { body } = await request(`/v1/agents/${agent.id}/test-runs/${started.body.data.id}`)
    const run = body.data
    expect(run).toMatchObject({ status: 'passed', runner: 'voice_worker', done: 1, passed: 1, failed: 0 })
    const [result] = run.results
    expect(result?.testId).toBe(test.id)
    expect(result?.verdicts.map((verdict) => [verdict.expectation.type, verdict.passed])).toEqual([
      ['must_call', true],
      ['must_say', true],
      ['must_end', true],
      ['judge', true],
    ])
    expect(result?.transcript).toEqual([
      { role: 'visitor', content: 'Where is order A17?' },
      {
        role: 'tool',
        kind: 'function',
        name: 'lookup_order',
        arguments: { orderNumber: 'A17' },
        content: 'completed',
        answeredBy: 'stub',
      },
      { role: 'agent', content: 'Your order A17 has shipped.' },
      { role: 'visitor', content: 'Thanks, that is all.' },
      {
        role: 'tool',
        kind: 'end_call',
        name: 'end_call',
        arguments: {},
        content: 'completed',
        answeredBy: 'none',
      },
    ])
    // The voice agent's prompt and tools (phone ones included), the stub's answer, never the real endpoint.
    const first = llm.requests[0]
    expect(JSON.stringify(first?.messages)).toContain('You are the shop’s phone assistant.')
    expect(JSON.stringify(first?.messages)).toContain('voice call')
    expect(first?.tools?.map((tool) => tool.function.name).sort()).toEqual(
      ['end_call', 'lookup_order', 'transfer_call'].sort(),
    )
    expect(JSON.stringify(llm.requests[1]?.messages)).toContain('{\\"status\\":\\"shipped\\"}')
    expect(shop.received).toEqual([])
    // Paid: the agent's tokens and the judge on the ledger under the run, no hold left behind.
    const ledger = await parley.server.ctx.db
      .selectFrom('credit_ledger')
      .select(['reason', 'amount_micros'])
      .where('reference', '=', run.id)
      .execute()
    expect(ledger.map((row) => row.reason).sort()).toEqual(['Agent test judge', 'Agent test voice reply'])
    expect(result?.costMicros).toBe(-ledger.reduce((sum, row) => sum + Number(row.amount_micros), 0))
    expect(result?.costMicros).toBeGreaterThan(0)
    const holds = await parley.server.ctx.db
      .selectFrom('credit_holds')
      .select('id')
      .where('reference', '=', run.id)
      .execute()
    expect(holds).toEqual([])
  })

  it('an agent that speaks first greets before the visitor’s first turn', async () => {
    const agent = await parley.makeVoiceAgent({
      greetingType: 'agentFirst',
      greetingMessage: 'Welcome to the shop!',
    })
    await createTest(agent.id, {
      name: 'Greets first',
      visitor: { kind: 'script', turns: ['Hi, do you sell mugs?'] },
      expectations: [{ type: 'must_say', text: 'Welcome to the shop' }],
    })
    const started = await request(`/v1/agents/${agent.id}/test-runs`, { method: 'POST', json: {} })
    llm.queue({ text: ['We do.'] })
    expect(await runClaimedTestCases(runnerOptions())).toBe(1)
    const run = (await request(`/v1/agents/${agent.id}/test-runs/${started.body.data.id}`)).body.data
    expect(run.results[0]?.transcript).toEqual([
      { role: 'agent', content: 'Welcome to the shop!' },
      { role: 'visitor', content: 'Hi, do you sell mugs?' },
      { role: 'agent', content: 'We do.' },
    ])
    expect(run.status).toBe('passed')
  })

  it('a transfer to a person passes must_hand_off and ends the conversation', async () => {
    const agent = await makeShopAgent()
    await createTest(agent.id, {
      name: 'Sends buyers to sales',
      visitor: { kind: 'script', turns: ['I want to buy ten mugs.', 'Hello?'] },
      expectations: [
        { type: 'must_hand_off' },
        { type: 'must_call', function: 'transfer_call', arguments: { destination: 'Sales' } },
        { type: 'must_not_call', function: 'lookup_order' },
      ],
    })
    const started = await request(`/v1/agents/${agent.id}/test-runs`, { method: 'POST', json: {} })
    llm.queue({ toolCalls: [{ name: 'transfer_call', args: ['{"destination":"Sales"}'] }] })
    expect(await runClaimedTestCases(runnerOptions())).toBe(1)
    const run = (await request(`/v1/agents/${agent.id}/test-runs/${started.body.data.id}`)).body.data
    expect(run.status, JSON.stringify(run.results)).toBe('passed')
    // The transfer ended the call: the second visitor turn was never said.
    expect(run.results[0]?.transcript.filter((turn) => turn.role === 'visitor')).toHaveLength(1)
    expect(run.results[0]?.transcript).toContainEqual(
      expect.objectContaining({ role: 'tool', kind: 'handoff', name: 'transfer_call', content: 'Sales' }),
    )
    expect(llm.requests).toHaveLength(1)
  })

  it('a persona visitor is played by the server; a handoff goes through the server to the other voice agent', async () => {
    const billing = await parley.makeVoiceAgent({ name: 'Billing Desk', systemPrompt: 'You handle billing.' })
    const frontDesk = await parley.makeVoiceAgent({
      name: 'Front Desk',
      greetingType: 'userFirst',
      handoffAgentIds: [billing.id],
    })
    await createTest(frontDesk.id, {
      name: 'Sends refunds to billing',
      visitor: {
        kind: 'persona',
        persona: 'A customer',
        goal: 'Get a refund',
        opening: 'I need a refund.',
        maxTurns: 3,
      },
      expectations: [
        { type: 'must_hand_off', agentId: billing.id },
        { type: 'must_say', text: 'Billing here' },
      ],
    })
    const started = await request(`/v1/agents/${frontDesk.id}/test-runs`, { method: 'POST', json: {} })
    llm.queue(
      { toolCalls: [{ name: 'transfer_to_billing_desk', args: ['{}'] }] },
      { text: ['Billing here, I can refund you.'] },
      // The visitor model (on the server) is done after the agent's answer.
      { text: ['[DONE]'], usage: { input: 30, output: 2 } },
    )
    expect(await runClaimedTestCases(runnerOptions())).toBe(1)
    const run = (await request(`/v1/agents/${frontDesk.id}/test-runs/${started.body.data.id}`)).body.data
    expect(run.status, JSON.stringify(run.results)).toBe('passed')
    expect(run.results[0]?.transcript).toEqual([
      { role: 'visitor', content: 'I need a refund.' },
      {
        role: 'tool',
        kind: 'handoff',
        name: 'transfer_to_billing_desk',
        arguments: {},
        content: billing.id,
        answeredBy: 'none',
      },
      { role: 'agent', content: 'Billing here, I can refund you.' },
    ])
    // The handed-to agent answered with its own prompt; the visitor model saw the conversation.
    expect(llm.requests[1]?.messages[0]?.content).toMatch(/^You handle billing\./)
    expect(JSON.stringify(llm.requests[2]?.messages)).toContain('Get a refund')
    const ledger = await parley.server.ctx.db
      .selectFrom('credit_ledger')
      .select('reason')
      .where('reference', '=', run.id)
      .execute()
    expect(ledger.map((row) => row.reason)).toContain('Agent test visitor')
  })

  it('a run on a numbered version uses the function definitions that version was published with', async () => {
    // Version 2 enabled lookup_order; renaming and redefining it is live at once, recorded as version 3.
    const agent = await makeShopAgent()
    const edited = await parley.server.request(`/api/custom-functions/${agent.id}`, {
      method: 'PUT',
      token: parley.key,
      json: {
        id: agent.functionId,
        name: 'find_order',
        description: 'Finds an order by its new-style reference',
        parameters: { type: 'object', properties: { reference: { type: 'string' } } },
      },
    })
    expect(edited.status).toBe(200)
    const versions = await request(`/v1/agents/${agent.id}/versions`)
    expect((versions.body.data as unknown as { number: number }[])[0]?.number).toBe(3)
    await createTest(agent.id, {
      name: 'Finds an order the old way',
      visitor: { kind: 'script', turns: ['Where is order A17?'] },
      expectations: [{ type: 'must_call', function: 'lookup_order', arguments: { orderNumber: 'A17' } }],
      stubs: { lookup_order: { status: 'shipped' } },
    })
    /** One run on `version` (the published one when none) where the model looks the order up, then says `reply`. */
    const runOn = async (
      version?: number,
      { testIds, reply }: { testIds?: string[]; reply: string } = { reply: 'It has shipped.' },
    ) => {
      llm.reset()
      const started = await request(`/v1/agents/${agent.id}/test-runs`, {
        method: 'POST',
        json: { ...(version ? { version } : {}), ...(testIds ? { testIds } : {}) },
      })
      expect(started.status, JSON.stringify(started.body)).toBe(202)
      llm.queue({ toolCalls: [{ name: 'lookup_order', args: ['{"orderNumber":"A17"}'] }] }, { text: [reply] })
      expect(await runClaimedTestCases(runnerOptions())).toBe(1)
      const run = (await request(`/v1/agents/${agent.id}/test-runs/${started.body.data.id}`)).body.data
      expect(run.version).toBe(version ?? 3)
      return run
    }
    const toolsOf = async (version?: number) => {
      const run = await runOn(version)
      return { run, tools: llm.requests[0]?.tools?.map((tool) => tool.function) ?? [] }
    }
    // Version 2: the old name, description and parameters reach the model; the stub answers the old name.
    const older = await toolsOf(2)
    expect(older.tools.find((tool) => tool.name === 'lookup_order')).toMatchObject({
      description: 'Finds an order by its number',
      parameters: { properties: { orderNumber: { type: 'string' } } },
    })
    expect(older.tools.map((tool) => tool.name)).not.toContain('find_order')
    expect(older.run.status, JSON.stringify(older.run.results)).toBe('passed')
    expect(older.run.results[0]?.transcript).toContainEqual(
      expect.objectContaining({ role: 'tool', name: 'lookup_order', answeredBy: 'stub' }),
    )
    // The published version 3: the definitions now (lookup_order is no tool of it).
    const latest = await toolsOf()
    expect(latest.tools.find((tool) => tool.name === 'find_order')).toMatchObject({
      description: 'Finds an order by its new-style reference',
      parameters: { properties: { reference: { type: 'string' } } },
    })
    expect(latest.tools.map((tool) => tool.name)).not.toContain('lookup_order')
    expect(latest.run.results[0]?.transcript).not.toContainEqual(
      expect.objectContaining({ answeredBy: 'stub' }),
    )
    expect(shop.received).toEqual([])

    // Deleted since (version 4): version 2 still offers it, but a test allowing real calls without
    // a stub never reaches its endpoint: the agent reads that it was deleted, as in a chat run.
    const deleted = await parley.server.request(
      `/api/custom-functions/${agent.id}?functionId=${agent.functionId}`,
      { method: 'DELETE', token: parley.key },
    )
    expect(deleted.status).toBe(200)
    const real = await createTest(agent.id, {
      name: 'Calls for real',
      visitor: { kind: 'script', turns: ['Where is order A17?'] },
      expectations: [{ type: 'must_call', function: 'lookup_order' }],
      allowRealCalls: true,
    })
    const run = await runOn(2, { testIds: [real.id], reply: 'I cannot look that up.' })
    expect(run.results[0]?.transcript).toContainEqual(
      expect.objectContaining({ role: 'tool', name: 'lookup_order', answeredBy: 'refused' }),
    )
    expect(JSON.stringify(llm.requests[1]?.messages)).toContain('was deleted after this version')
    expect(shop.received).toEqual([])
  })

  it('searches the agent’s knowledge sources through the server; another organization’s claim cannot', async () => {
    const created = await parley.server.request('/v1/knowledge/sources', {
      method: 'POST',
      headers: { 'x-api-key': parley.key },
      json: {
        kind: 'text',
        title: 'Front desk',
        text: '# Opening hours\n\nThe shop opens at nine on Mondays.\n\n# Parking\n\nGuests park free behind the hotel.',
      },
    })
    expect(created.status).toBe(202)
    const sourceId = ((await created.json()) as { data: { id: string } }).data.id
    await vi.waitFor(
      async () => {
        const response = await parley.server.request(`/v1/knowledge/sources/${sourceId}`, {
          headers: { 'x-api-key': parley.key },
        })
        expect(((await response.json()) as { data: { status: string } }).data.status).toBe('ready')
      },
      { timeout: 45_000, interval: 50 },
    )
    const agent = await parley.makeVoiceAgent({ greetingType: 'userFirst', knowledgeSourceIds: [sourceId] })
    await createTest(agent.id, {
      name: 'Knows where to park',
      visitor: { kind: 'script', turns: ['Is there somewhere for the car?'] },
      expectations: [
        { type: 'must_call', function: 'search_knowledge' },
        { type: 'must_say', text: 'behind the hotel' },
      ],
    })
    const started = await request(`/v1/agents/${agent.id}/test-runs`, { method: 'POST', json: {} })
    llm.queue(
      { toolCalls: [{ name: 'search_knowledge', args: ['{"query":"where to park"}'] }] },
      { text: ['Parking is free behind the hotel.'] },
    )
    expect(await runClaimedTestCases(runnerOptions())).toBe(1)
    const run = (await request(`/v1/agents/${agent.id}/test-runs/${started.body.data.id}`)).body.data
    expect(run.status, JSON.stringify(run.results)).toBe('passed')
    expect(run.results[0]?.transcript).toContainEqual({
      role: 'tool',
      kind: 'function',
      name: 'search_knowledge',
      arguments: { query: 'where to park' },
      content: 'completed',
      answeredBy: 'none',
    })
    // The search's passages reached the model as the tool's output.
    const output = llm.requests[1]?.messages.find((message) => message.role === 'tool')
    expect(JSON.stringify(output)).toContain('Guests park free behind the hotel.')

    // Another organization's case: its claim searches only its own agent's sources, never this
    // run's; on this organization's run it is no claim at all.
    const theirs = await makeAgent(parley.server, other.owner, {
      agentArchitecture: 'pipeline',
      greetingType: 'userFirst',
    })
    const otherTest = await request(`/v1/agents/${theirs.id}/tests`, {
      method: 'POST',
      key: otherKey,
      json: {
        name: 'Theirs',
        visitor: { kind: 'script', turns: ['Hi'] },
        expectations: [{ type: 'must_say', text: 'hello' }],
      },
    })
    expect(otherTest.status).toBe(201)
    const otherRun = await request(`/v1/agents/${theirs.id}/test-runs`, {
      method: 'POST',
      json: {},
      key: otherKey,
    })
    expect(otherRun.status).toBe(202)
    const claimed = await api.claim()
    expect(claimed).toMatchObject({ runId: otherRun.body.data.id, organizationId: other.organizationId })
    const search = (runId: string, testId: string, body: unknown) =>
      parley.server.request(`/v1/worker/agent-test-runs/${runId}/cases/${testId}/knowledge/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${parley.workerToken}` },
        json: body,
      })
    const own = await search(claimed?.runId ?? '', claimed?.testId ?? '', {
      claimId: claimed?.claimId,
      query: 'where to park',
    })
    expect(own.status).toBe(200)
    expect(await own.json()).toEqual({ passages: [], sources: [], instruction: null })
    const foreign = await search(run.id, run.results[0]?.testId ?? '', {
      claimId: claimed?.claimId,
      query: 'where to park',
    })
    expect(foreign.status).toBe(409)
    // Strict bodies, and the worker's token only.
    expect(
      (
        await search(claimed?.runId ?? '', claimed?.testId ?? '', {
          claimId: claimed?.claimId,
          query: 'x',
          extra: 1,
        })
      ).status,
    ).toBe(400)
    expect(
      (await search(claimed?.runId ?? '', claimed?.testId ?? '', { claimId: claimed?.claimId, query: ' ' }))
        .status,
    ).toBe(400)
    const keyed = await parley.server.request(
      `/v1/worker/agent-test-runs/${claimed?.runId}/cases/${claimed?.testId}/knowledge/search`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${parley.key}` },
        json: { claimId: claimed?.claimId, query: 'park' },
      },
    )
    expect(keyed.status).toBe(401)
    if (claimed)
      await api.report(claimed, { transcript: [], usage: { inputTokens: 0, outputTokens: 0 }, error: 'done' })
  })

  it('one worker a case: a held case is not handed out again; the claim names the case, the worker token guards it', async () => {
    const agent = await makeShopAgent()
    await createTest(agent.id, {
      name: 'Greets',
      visitor: { kind: 'script', turns: ['Hi'] },
      expectations: [{ type: 'must_say', text: 'hello' }],
    })
    const started = await request(`/v1/agents/${agent.id}/test-runs`, { method: 'POST', json: {} })
    const claimed = await api.claim()
    expect(claimed).toMatchObject({ runId: started.body.data.id, name: 'Greets', stubs: {} })
    // A second worker finds nothing to do while the first holds the case.
    expect(await api.claim()).toBeNull()
    const running = (await request(`/v1/agents/${agent.id}/test-runs/${started.body.data.id}`)).body.data
    expect(running).toMatchObject({ status: 'running', done: 0 })

    const worker = (path: string, body: unknown, token = parley.workerToken) =>
      parley.server.request(path, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        json: body,
      })
    const resultPath = `/v1/worker/agent-test-runs/${claimed?.runId}/cases/${claimed?.testId}/result`
    const report = { transcript: [], usage: { inputTokens: 0, outputTokens: 0 }, error: null }
    // An organization's API key is not the worker's token; an unknown field is refused; a wrong claim is 409.
    expect((await worker('/v1/worker/agent-test-runs/claim', {}, parley.key)).status).toBe(401)
    expect((await worker(resultPath, { ...report, claimId: claimed?.claimId, extra: 1 })).status).toBe(400)
    const wrong = await worker(resultPath, { ...report, claimId: 'not-the-claim' })
    expect(wrong.status).toBe(409)
    expect(((await wrong.json()) as { code: string }).code).toBe('claim_lost')

    // The lease runs out (its worker died): the sweep frees the case, and another worker takes it.
    await parley.server.ctx.db
      .updateTable('agent_test_case_claims')
      .set({ lease_until: new Date(Date.now() - 1000) })
      .where('claim_id', '=', claimed?.claimId ?? '')
      .execute()
    await parley.server.ctx.jobs.now('agent-tests.sweep', {})
    const again = await vi.waitFor(async () => {
      const next = await api.claim()
      expect(next).not.toBeNull()
      return next as NonNullable<typeof next>
    })
    expect(again).toMatchObject({ runId: claimed?.runId, testId: claimed?.testId })
    expect(again.claimId).not.toBe(claimed?.claimId)
    llm.queue({ text: ['Hello there!'] })
    await api.report(again, await runAgain(again))
    // The first worker's late report is refused: the case ran once.
    expect((await worker(resultPath, { ...report, claimId: claimed?.claimId })).status).toBe(409)
    const done = (await request(`/v1/agents/${agent.id}/test-runs/${started.body.data.id}`)).body.data
    expect(done).toMatchObject({ status: 'passed', done: 1, total: 1 })

    // Another organization neither sees the run nor its agent's runs.
    expect(
      (await request(`/v1/agents/${agent.id}/test-runs/${started.body.data.id}`, { key: otherKey })).status,
    ).toBe(404)
    expect((await request(`/v1/agents/${agent.id}/test-runs`, { key: otherKey })).status).toBe(404)
  })

  it('npm run agent-test waits for the worker and exits 1 when a voice test fails', async () => {
    const agent = await makeShopAgent()
    await createTest(agent.id, {
      name: 'Never says the price',
      visitor: { kind: 'script', turns: ['How much is a mug?'] },
      expectations: [{ type: 'must_not_say', pattern: '\\d+ dollars' }],
    })
    const cli = fileURLToPath(new URL('../../client/src/agent-test-cli.ts', import.meta.url))
    let stdout = ''
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', cli, agent.id, '--base-url', parley.server.url, '--poll-ms', '50'],
      { env: { PATH: process.env.PATH ?? '', PARLEY_API_KEY: parley.key } },
    )
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    // The CLI started the run; the worker runs it.
    await vi.waitFor(() => expect(stderr).toContain('run by the voice worker'), { timeout: 30_000 })
    llm.queue({ text: ['A mug is 12 dollars.'] })
    expect(await runClaimedTestCases(runnerOptions())).toBe(1)
    expect(await exited, `${stderr}${stdout}`).toBe(1)
    expect(stdout).toContain('FAIL  Never says the price')
  })
})

/** Runs a claimed case as the worker would (a helper for the sweep test). */
const runAgain = async (testCase: NonNullable<Awaited<ReturnType<TestRunApi['claim']>>>) => {
  const { runVoiceTestCase } = await import('./test-runner.ts')
  return runVoiceTestCase({ testCase, api, vad, logger: log(), allowHosts: [] })
}
