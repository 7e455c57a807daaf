import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { setBalanceMicros } from '../../test/helpers/billing.ts'
import { type FakeLlm, startFakeLlm } from '../../test/helpers/fake-llm.ts'
import { type HttpTarget, respondJson, startHttpTarget } from '../../test/helpers/http-target.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { updateAgent } from '../agents/service.ts'
import { auditBySystem } from '../audit/index.ts'
import { createFunction, deleteFunction, listFunctions, updateFunction } from '../functions/service.ts'
import { executeRun, ORPHANED_RUN_REASON, SWEEP_JOB } from './run.ts'

let server: TestServer
let llm: FakeLlm
let customer: HttpTarget
let team: Awaited<ReturnType<typeof createTeam>>
let other: Awaited<ReturnType<typeof createTeam>>
let key: string
let otherKey: string

beforeAll(async () => {
  llm = await startFakeLlm()
  customer = await startHttpTarget((_request, response) =>
    respondJson(response, 200, { status: 'real answer' }),
  )
  server = await startTestServer({
    env: {
      LLM_BASE_URL: llm.baseUrl,
      LLM_API_KEY: 'test-llm-key',
      OUTBOUND_ALLOW_HOSTS: customer.hostAndPort,
    },
  })
  team = await createTeam(server)
  other = await createTeam(server)
  key = await secretKeyFor(server, team.owner)
  otherKey = await secretKeyFor(server, other.owner)
}, 240_000)
afterAll(async () => {
  await server?.destroy()
  await llm?.close()
  await customer?.close()
})
beforeEach(() => {
  llm.reset()
  customer.received.length = 0
})

// biome-ignore lint/suspicious/noExplicitAny: answers are read loosely; their shapes are the assertions
type Json = Record<string, any>
const call = async (path: string, init: { method?: string; json?: unknown; token?: string } = {}) => {
  const response = await server.request(path, {
    method: init.method ?? 'GET',
    token: init.token ?? key,
    ...(init.json !== undefined ? { json: init.json } : {}),
  })
  return { status: response.status, body: (await response.json()) as Json }
}

/** A support agent with a custom function (its real endpoint: `customer`) and end_call. */
const makeSupportAgent = async (overrides: Record<string, unknown> = {}) => {
  const agent = await makeAgent(server, team.owner, {
    name: 'Support Bot',
    systemPrompt: 'You answer support questions.',
    enabledFunctions: ['end_call'],
    ...overrides,
  })
  const actor = { organizationId: team.organizationId, userId: team.owner.userId, role: 'owner' as const }
  const fn = await createFunction(server.ctx, actor, {
    agentId: agent.id,
    input: {
      name: 'lookup_order',
      label: 'Look up an order',
      description: 'Finds an order by id',
      endpoint: `${customer.origin}/orders`,
      method: 'POST',
      headers: {},
      parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    },
  })
  await updateAgent(server.ctx, actor, {
    agentId: agent.id,
    changes: { enabledCustomFunctions: [fn.id] },
    surface: 'v1',
    by: auditBySystem,
  })
  return agent
}

const orderTest = {
  name: 'Finds an order',
  visitor: { kind: 'script', turns: ['Where is my order A1?'] },
  expectations: [
    { type: 'must_call', function: 'lookup_order', arguments: { order_id: 'A1' } },
    { type: 'must_say', text: 'shipped' },
    { type: 'must_not_say', pattern: 'refund(ed)?' },
    { type: 'judge', criterion: 'The agent gives the order status' },
  ],
  stubs: { lookup_order: { status: 'shipped' } },
}

const createTest = async (agentId: string, json: unknown = orderTest) => {
  const created = await call(`/v1/agents/${agentId}/tests`, { method: 'POST', json })
  expect(created.status).toBe(201)
  return created.body.data as Json
}

/** The run once its job has finished it. */
const finished = (agentId: string, runId: string) =>
  vi.waitFor(
    async () => {
      const run = await call(`/v1/agents/${agentId}/test-runs/${runId}`)
      expect(['queued', 'running']).not.toContain(run.body.data.status)
      return run.body.data as Json
    },
    { timeout: 30_000, interval: 50 },
  )

const scriptOrderReplies = ({ judge }: { judge: boolean }) =>
  llm.queue(
    {
      toolCalls: [{ name: 'lookup_order', args: ['{"order_id":', '"A1"}'] }],
      usage: { input: 50, output: 5 },
    },
    { text: ['Your order A1 has ', 'shipped.'], usage: { input: 60, output: 6 } },
    {
      text: [JSON.stringify({ passed: judge, reason: judge ? 'It gave the status' : 'No status given' })],
      usage: { input: 80, output: 10 },
    },
  )

describe('agent test cases', () => {
  it('creates, lists, reads, changes and deletes a test', async () => {
    const agent = await makeSupportAgent()
    const test = await createTest(agent.id)
    expect(test).toMatchObject({ name: 'Finds an order', allowRealCalls: false, judgeModel: null })
    const listed = await call(`/v1/agents/${agent.id}/tests`)
    expect(listed.body.data.map((each: Json) => each.id)).toEqual([test.id])
    expect(listed.body.pagination).toEqual({ page: 1, total: 1, hasNext: false })
    const changed = await call(`/v1/agents/${agent.id}/tests/${test.id}`, {
      method: 'PATCH',
      json: { name: 'Order status', judgeModel: 'gpt-4o' },
    })
    expect(changed.body.data).toMatchObject({ name: 'Order status', judgeModel: 'gpt-4o' })
    expect((await call(`/v1/agents/${agent.id}/tests/${test.id}`)).body.data.name).toBe('Order status')
    const deleted = await call(`/v1/agents/${agent.id}/tests/${test.id}`, { method: 'DELETE' })
    expect(deleted.body.data).toEqual({ id: test.id, deleted: true })
    expect((await call(`/v1/agents/${agent.id}/tests/${test.id}`)).status).toBe(404)
  })

  it('refuses bad input with a 4xx naming the field, changing nothing', async () => {
    const agent = await makeSupportAgent()
    const post = (json: unknown) => call(`/v1/agents/${agent.id}/tests`, { method: 'POST', json })
    const cases: [unknown, string][] = [
      [{ ...orderTest, colour: 'red' }, 'colour'],
      [{ ...orderTest, expectations: [{ type: 'must_say', pattern: '(a+)+$' }] }, 'expectations.0.pattern'],
      [
        { ...orderTest, expectations: [{ type: 'must_say', pattern: '(unclosed' }] },
        'expectations.0.pattern',
      ],
      [{ ...orderTest, expectations: [{ type: 'must_say', text: 'a', pattern: 'b' }] }, 'expectations.0'],
      [{ ...orderTest, expectations: [{ type: 'sing' }] }, 'expectations.0'],
      [
        { ...orderTest, visitor: { kind: 'persona', persona: 'x', goal: 'y', maxTurns: 50 } },
        'visitor.maxTurns',
      ],
      [{ ...orderTest, expectations: [] }, 'expectations'],
    ]
    for (const [json, field] of cases) {
      const refused = await post(json)
      expect(refused.status, JSON.stringify(json)).toBe(400)
      expect(refused.body.error).toContain(field)
    }
    expect((await call(`/v1/agents/${agent.id}/tests`)).body.data).toEqual([])
    const run = await call(`/v1/agents/${agent.id}/test-runs`, { method: 'POST', json: {} })
    expect(run).toMatchObject({ status: 409, body: { code: 'conflict' } })
    const test = await createTest(agent.id)
    const badRuns: [unknown, number][] = [
      [{ version: 0 }, 400],
      [{ version: 'latest' }, 400],
      [{ testIds: ['nope'] }, 400],
      [{ speed: 'fast' }, 400],
      [{ version: 99 }, 404],
    ]
    for (const [json, status] of badRuns)
      expect((await call(`/v1/agents/${agent.id}/test-runs`, { method: 'POST', json })).status).toBe(status)
    const patch = await call(`/v1/agents/${agent.id}/tests/${test.id}`, {
      method: 'PATCH',
      json: { expectations: [{ type: 'must_not_say', pattern: '(x*)*y' }] },
    })
    expect(patch.status).toBe(400)
    expect(
      (await call(`/v1/agents/${agent.id}/test-settings`, { method: 'PUT', json: { on: true } })).status,
    ).toBe(400)
    expect((await call(`/v1/agents/${agent.id}/test-runs`)).body.data).toEqual([])
  })

  it('answers 404 to another organization for the tests, runs and settings of an agent', async () => {
    const agent = await makeSupportAgent()
    const test = await createTest(agent.id)
    const paths: [string, string, unknown?][] = [
      ['GET', `/v1/agents/${agent.id}/tests`],
      ['POST', `/v1/agents/${agent.id}/tests`, orderTest],
      ['GET', `/v1/agents/${agent.id}/tests/${test.id}`],
      ['PATCH', `/v1/agents/${agent.id}/tests/${test.id}`, { name: 'Mine now' }],
      ['DELETE', `/v1/agents/${agent.id}/tests/${test.id}`],
      ['POST', `/v1/agents/${agent.id}/test-runs`, {}],
      ['GET', `/v1/agents/${agent.id}/test-runs`],
      ['GET', `/v1/agents/${agent.id}/test-settings`],
      ['PUT', `/v1/agents/${agent.id}/test-settings`, { runBeforePublish: true }],
    ]
    for (const [method, path, json] of paths) {
      const answer = await call(path, { method, json, token: otherKey })
      expect(answer.status, `${method} ${path}`).toBe(404)
    }
    // The other organization's own agent does not reach this one's test either.
    const theirs = await makeAgent(server, other.owner)
    expect((await call(`/v1/agents/${theirs.id}/tests/${test.id}`, { token: otherKey })).status).toBe(404)
    expect((await call(`/v1/agents/${agent.id}/tests/${test.id}`)).body.data.name).toBe('Finds an order')
  })
})

describe('agent test runs', () => {
  it('runs a scripted test on the chat path with stubs, judges it and bills it like chat', async () => {
    const agent = await makeSupportAgent()
    const test = await createTest(agent.id)
    scriptOrderReplies({ judge: true })
    const before = await server.ctx.db
      .selectFrom('credit_ledger')
      .select('id')
      .where('organization_id', '=', team.organizationId)
      .execute()
    const started = await call(`/v1/agents/${agent.id}/test-runs`, { method: 'POST', json: {} })
    expect(started.status).toBe(202)
    expect(started.body.data).toMatchObject({
      status: 'queued',
      version: 2,
      total: 1,
      done: 0,
      trigger: 'api',
    })
    const run = await finished(agent.id, started.body.data.id)
    expect(run).toMatchObject({ status: 'passed', total: 1, done: 1, passed: 1, failed: 0 })
    const [result] = run.results
    expect(result).toMatchObject({ testId: test.id, status: 'passed', error: null })
    expect(result.transcript).toEqual([
      { role: 'visitor', content: 'Where is my order A1?' },
      {
        role: 'tool',
        kind: 'function',
        name: 'lookup_order',
        arguments: { order_id: 'A1' },
        content: 'completed',
        answeredBy: 'stub',
      },
      { role: 'agent', content: 'Your order A1 has shipped.' },
    ])
    expect(result.verdicts.map((verdict: Json) => [verdict.expectation.type, verdict.passed])).toEqual([
      ['must_call', true],
      ['must_say', true],
      ['must_not_say', true],
      ['judge', true],
    ])
    expect(result.verdicts[3].reason).toBe('It gave the status')
    // The stub answered the agent; the real endpoint was never called.
    expect(customer.received).toEqual([])
    expect(JSON.stringify(llm.requests[1]?.messages)).toContain('{\\"status\\":\\"shipped\\"}')
    // The agent's real prompt and tools, then the judge with the transcript.
    expect(JSON.stringify(llm.requests[0]?.messages)).toContain('You answer support questions.')
    expect(llm.requests[0]?.tools?.map((tool) => tool.function.name)).toEqual(['lookup_order', 'end_call'])
    expect(JSON.stringify(llm.requests[2]?.messages)).toContain('The agent gives the order status')
    // Paid: each model call settled on the ledger, no hold left behind.
    const usage = await server.ctx.db
      .selectFrom('credit_ledger')
      .select(['reason', 'amount_micros', 'reference'])
      .where('organization_id', '=', team.organizationId)
      .where('id', 'not in', before.map((row) => row.id).concat(['']))
      .execute()
    expect(usage.map((row) => row.reason).sort()).toEqual(['Agent test judge', 'Agent test reply'])
    expect(usage.every((row) => row.reference === run.id && Number(row.amount_micros) < 0)).toBe(true)
    expect(result.costMicros).toBe(-usage.reduce((sum, row) => sum + Number(row.amount_micros), 0))
    const holds = await server.ctx.db
      .selectFrom('credit_holds')
      .select('id')
      .where('reference', '=', run.id)
      .execute()
    expect(holds).toEqual([])
    const listed = await call(`/v1/agents/${agent.id}/test-runs`)
    expect(listed.body.data).toEqual([expect.objectContaining({ id: run.id, status: 'passed' })])
    expect(listed.body.data[0].results).toBeUndefined()
  })

  it('plays a persona with a model, refuses unstubbed functions and reports failures with reasons', async () => {
    const agent = await makeSupportAgent()
    await createTest(agent.id, {
      name: 'Impatient customer',
      visitor: {
        kind: 'persona',
        persona: 'An impatient customer',
        goal: 'Learn where order 9 is',
        maxTurns: 3,
      },
      expectations: [
        { type: 'must_say', text: 'shipped' },
        { type: 'must_end' },
        { type: 'judge', criterion: 'The agent stays polite' },
      ],
    })
    llm.queue(
      { text: ['Where is order 9?'] },
      { toolCalls: [{ name: 'lookup_order', args: ['{"order_id":"9"}'] }] },
      { text: ['I cannot look that up right now.'] },
      { text: ['[DONE]'] },
      { text: ['{"passed": false, "reason": "The agent was curt"}'] },
    )
    const started = await call(`/v1/agents/${agent.id}/test-runs`, {
      method: 'POST',
      json: { version: 'draft' },
    })
    const run = await finished(agent.id, started.body.data.id)
    expect(run).toMatchObject({ status: 'failed', version: 'draft', passed: 0, failed: 1 })
    const [result] = run.results
    expect(result.transcript.map((turn: Json) => [turn.role, turn.answeredBy ?? turn.content])).toEqual([
      ['visitor', 'Where is order 9?'],
      ['tool', 'refused'],
      ['agent', 'I cannot look that up right now.'],
    ])
    expect(result.verdicts.map((verdict: Json) => [verdict.passed, verdict.reason])).toEqual([
      [false, 'the agent never said the text "shipped"'],
      [false, 'the agent never ended the chat'],
      [false, 'The agent was curt'],
    ])
    expect(customer.received).toEqual([])
    // The visitor model sees the agent's reply as the other side's turn, with its persona and goal.
    expect(JSON.stringify(llm.requests[3]?.messages)).toContain('Learn where order 9 is')
    expect(llm.requests[3]?.messages.at(-1)).toMatchObject({
      role: 'user',
      content: 'I cannot look that up right now.',
    })
  })

  it('calls the real endpoint only when the test allows it', async () => {
    const agent = await makeSupportAgent()
    await createTest(agent.id, {
      name: 'Real call',
      visitor: { kind: 'script', turns: ['Order A1?'] },
      expectations: [{ type: 'must_call', function: 'lookup_order' }],
      allowRealCalls: true,
    })
    llm.queue({ toolCalls: [{ name: 'lookup_order', args: ['{"order_id":"A1"}'] }] }, { text: ['Done.'] })
    const started = await call(`/v1/agents/${agent.id}/test-runs`, { method: 'POST', json: {} })
    const run = await finished(agent.id, started.body.data.id)
    expect(run.status).toBe('passed')
    expect(run.results[0].transcript[1]).toMatchObject({ answeredBy: 'real' })
    expect(customer.received).toHaveLength(1)
  })

  it('refuses a run with 402 when the credits are short', async () => {
    const agent = await makeSupportAgent()
    await createTest(agent.id)
    const poorTeam = await createTeam(server)
    const poorKey = await secretKeyFor(server, poorTeam.owner)
    const poorAgent = await makeAgent(server, poorTeam.owner)
    await call(`/v1/agents/${poorAgent.id}/tests`, { method: 'POST', json: orderTest, token: poorKey })
    await setBalanceMicros(server, { organizationId: poorTeam.organizationId, micros: 0 })
    const refused = await call(`/v1/agents/${poorAgent.id}/test-runs`, {
      method: 'POST',
      json: {},
      token: poorKey,
    })
    expect(refused).toMatchObject({ status: 402, body: { code: 'insufficient_credits' } })
    expect(llm.requests).toEqual([])
  })
})

describe('a run on a version uses that version entirely', () => {
  it('runs on the function definitions the version was published with', async () => {
    const agent = await makeSupportAgent()
    await createTest(agent.id)
    const actor = { organizationId: team.organizationId, userId: team.owner.userId, role: 'owner' as const }
    const [fn] = (await listFunctions(server.ctx, actor, { agentId: agent.id })).functions as Json[]
    // Version 2 enabled the function; changing its definition is live at once, recorded as version 3.
    await updateFunction(server.ctx, actor, {
      agentId: agent.id,
      input: {
        id: fn?.id,
        description: 'Finds an order by its new-style reference',
        parameters: { type: 'object', properties: { reference: { type: 'string' } } },
      },
    })
    const listed = (await call(`/v1/agents/${agent.id}/versions`)).body.data as Json[]
    expect(listed[0]).toMatchObject({ number: 3, note: 'Function lookup_order changed', published: true })
    const diff = await call(`/v1/agents/${agent.id}/versions/3/diff`)
    expect(diff.body.data.changes.map((change: Json) => change.path)).toEqual(['functions.lookup_order'])
    // Headers are secrets, never versioned: changing them alone records no version.
    await updateFunction(server.ctx, actor, {
      agentId: agent.id,
      input: { id: fn?.id, headers: { authorization: 'Bearer new' } },
    })
    expect((await call(`/v1/agents/${agent.id}/versions`)).body.data[0].number).toBe(3)

    const toolOf = async (version?: number) => {
      llm.reset()
      scriptOrderReplies({ judge: true })
      const started = await call(`/v1/agents/${agent.id}/test-runs`, {
        method: 'POST',
        json: version ? { version } : {},
      })
      const run = await finished(agent.id, started.body.data.id)
      expect(run.version).toBe(version ?? 3)
      return llm.requests[0]?.tools?.find((tool) => tool.function.name === 'lookup_order')?.function
    }
    expect(await toolOf(2)).toMatchObject({
      description: 'Finds an order by id',
      parameters: { properties: { order_id: { type: 'string' } } },
    })
    expect(await toolOf()).toMatchObject({
      description: 'Finds an order by its new-style reference',
      parameters: { properties: { reference: { type: 'string' } } },
    })
    // Creating a function the agent has not enabled changes nothing it runs: no version.
    await createFunction(server.ctx, actor, {
      agentId: agent.id,
      input: {
        name: 'unused',
        label: 'Unused',
        description: 'Not enabled',
        endpoint: `${customer.origin}/unused`,
        method: 'GET',
        headers: {},
        parameters: { type: 'object', properties: {} },
      },
    })
    expect((await call(`/v1/agents/${agent.id}/versions`)).body.data[0].number).toBe(3)

    // Deleting the enabled function is version 4; version 2 still offers its own definition, and
    // the stub answers it (a real call would be refused: the function is gone).
    await deleteFunction(server.ctx, actor, { agentId: agent.id, functionId: fn?.id })
    expect((await call(`/v1/agents/${agent.id}/versions`)).body.data[0]).toMatchObject({
      number: 4,
      note: 'Function lookup_order deleted',
    })
    expect(await toolOf(2)).toMatchObject({ description: 'Finds an order by id' })
    expect(customer.received).toEqual([])
  })
})

describe('runs a dead instance left running', () => {
  it('are ended as error with the reason by the sweep on the job queue; live ones are left', async () => {
    const agent = await makeSupportAgent()
    const test = await createTest(agent.id)
    const { db } = server.ctx
    // Two other instances: one beat a minute ago (dead), one beats on (its beat is an hour ahead).
    await db
      .insertInto('server_instances')
      .values([
        { id: 'tests-ghost-dead', last_seen_at: new Date(Date.now() - 60_000) },
        { id: 'tests-ghost-alive', last_seen_at: new Date(Date.now() + 3_600_000) },
      ])
      .execute()
    const runningOn = async (id: string, instanceId: string | null) => {
      await db
        .insertInto('agent_test_runs')
        .values({
          id,
          organization_id: team.organizationId,
          agent_id: agent.id,
          version: 2,
          status: 'running',
          trigger: 'api',
          test_ids: JSON.stringify([test.id]),
          total: 1,
          started_by: null,
          instance_id: instanceId,
        })
        .execute()
    }
    await runningOn('run-of-dead', 'tests-ghost-dead')
    await runningOn('run-of-nobody', null)
    await runningOn('run-of-alive', 'tests-ghost-alive')
    await runningOn('run-of-this', server.ctx.instanceId)

    await server.ctx.jobs.now(SWEEP_JOB, {})
    for (const id of ['run-of-dead', 'run-of-nobody']) {
      const run = await finished(agent.id, id)
      expect(run).toMatchObject({ status: 'error', error: ORPHANED_RUN_REASON, done: 0 })
      expect(run.finishedAt).toEqual(expect.any(String))
    }
    // A job that picks an ended run again leaves it as it is: it takes only queued runs.
    await executeRun(server.ctx, 'run-of-dead')
    expect((await call(`/v1/agents/${agent.id}/test-runs/run-of-dead`)).body.data.status).toBe('error')
    expect(llm.requests).toEqual([])
    // The sweep ran after the two were written: the live instances' runs are still running.
    for (const id of ['run-of-alive', 'run-of-this'])
      expect((await call(`/v1/agents/${agent.id}/test-runs/${id}`)).body.data.status).toBe('running')
    await db.deleteFrom('agent_test_runs').where('agent_id', '=', agent.id).execute()
    await db.deleteFrom('server_instances').where('id', 'like', 'tests-ghost-%').execute()
  })
})

describe('the publish gate', () => {
  it('runs the tests on the draft and refuses a publish that fails one (409 tests_failed)', async () => {
    const agent = await makeSupportAgent()
    await createTest(agent.id)
    const settings = await call(`/v1/agents/${agent.id}/test-settings`, {
      method: 'PUT',
      json: { runBeforePublish: true },
    })
    expect(settings.body.data).toEqual({ runBeforePublish: true })
    expect((await call(`/v1/agents/${agent.id}/test-settings`)).body.data).toEqual({ runBeforePublish: true })
    const edit = await call(`/api/agents/${agent.id}`, {
      method: 'PUT',
      json: { sysMsg: 'Draft prompt: be brief.' },
      token: team.owner.session.token,
    })
    expect(edit.status).toBe(200)

    scriptOrderReplies({ judge: false })
    const refused = await call(`/v1/agents/${agent.id}/publish`, { method: 'POST', json: { note: 'Brief' } })
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({ success: false, code: 'tests_failed', runId: expect.any(String) })
    expect(JSON.stringify(llm.requests[0]?.messages)).toContain('Draft prompt: be brief.')
    const run = (await call(`/v1/agents/${agent.id}/test-runs/${refused.body.runId}`)).body.data
    expect(run).toMatchObject({ status: 'failed', version: 'draft', trigger: 'publish' })
    expect(run.results[0].verdicts[3]).toMatchObject({ passed: false, reason: 'No status given' })
    // Still version 2 (1 created, 2 the function enabled through the API).
    expect((await call(`/v1/agents/${agent.id}/versions`)).body.data[0].number).toBe(2)

    llm.reset()
    scriptOrderReplies({ judge: true })
    const published = await call(`/v1/agents/${agent.id}/publish`, {
      method: 'POST',
      json: { note: 'Brief' },
    })
    expect(published.status).toBe(201)
    expect(published.body.data.number).toBe(3)

    // Publishing, restoring and the gate's setting are in the audit log.
    expect((await call(`/v1/agents/${agent.id}/versions/2/restore`, { method: 'POST' })).status).toBe(200)
    const audit = await call(`/v1/audit-log?targetId=${agent.id}&limit=10`)
    const actions = audit.body.data.map((entry: Json) => [entry.action, entry.details])
    expect(actions.slice(0, 2)).toEqual([
      ['agent.version_restored', { version: 2 }],
      ['agent.published', { version: 3, fields: ['sysMsg'] }],
    ])
    expect(actions).toContainEqual(['agent.test_settings_updated', { runBeforePublish: true }])

    // A run on an older version uses that version's prompt.
    llm.reset()
    scriptOrderReplies({ judge: true })
    const older = await call(`/v1/agents/${agent.id}/test-runs`, { method: 'POST', json: { version: 2 } })
    await finished(agent.id, older.body.data.id)
    expect(JSON.stringify(llm.requests[0]?.messages)).toContain('You answer support questions.')
  })
})

describe('npm run agent-test', () => {
  const cli = fileURLToPath(new URL('../../../client/src/agent-test-cli.ts', import.meta.url))
  const runCli = (args: string[], env: Record<string, string> = { PARLEY_API_KEY: key }) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', cli, ...args, '--base-url', server.url, '--poll-ms', '50'],
        {
          env: { PATH: process.env.PATH ?? '', ...env },
        },
      )
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString()
      })
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
      })
      child.on('close', (code) => resolve({ code, stdout, stderr }))
    })

  it('exits 0 when every test passes, 1 when one fails, 2 when it cannot run', async () => {
    const agent = await makeSupportAgent()
    await createTest(agent.id)
    scriptOrderReplies({ judge: true })
    const passed = await runCli([agent.id])
    expect(passed.code, `${passed.stderr}${passed.stdout}`).toBe(0)
    expect(passed.stdout).toContain('PASS  Finds an order')

    scriptOrderReplies({ judge: false })
    const failed = await runCli([agent.id, '--version', '2'])
    expect(failed.code).toBe(1)
    expect(failed.stdout).toContain('FAIL judge: No status given')

    const refused = await runCli([agent.id], { PARLEY_API_KEY: otherKey })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('404')
  }, 60_000)
})
