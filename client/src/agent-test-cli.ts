import { parseArgs } from 'node:util'
import { createParleyClient, ParleyError, type Schemas, unwrap } from './index.ts'

/**
 * `npm run agent-test -- <agent id> [--version n|draft] [--test <id>]... [--base-url URL]`: runs an
 * agent's tests through the API (PARLEY_API_KEY, a secret key), waits for the run, prints each
 * test's verdicts and exits 0 when every test passed, 1 when one did not, 2 when it could not run.
 * For owners' CI. A voice agent's run is the voice worker's (its own session in text mode): the
 * CLI waits for it the same way, so a deployment's voice worker must be running.
 */

const USAGE = `usage: npm run agent-test -- <agent id> [--version <n>|draft] [--test <test id>]... [--base-url <url>] [--timeout <seconds>] [--poll-ms <ms>]
  PARLEY_API_KEY   a secret API key of the agent's organization (required)
  PARLEY_BASE_URL  the server (default http://localhost:3000); --base-url wins`

type Run = Schemas['TestRun']

const fail = (message: string): never => {
  process.stderr.write(`${message}\n`)
  process.exit(2)
}

const parseVersion = (value: string | undefined): number | 'draft' | undefined => {
  if (value === undefined) return undefined
  if (value === 'draft') return 'draft'
  const number = Number(value)
  if (!Number.isInteger(number) || number < 1)
    return fail(`--version must be a version number or draft\n${USAGE}`)
  return number
}

const printRun = (run: Run) => {
  const lines = [
    `Test run ${run.id} on version ${run.version}: ${run.status} (${run.passed} passed, ${run.failed} failed of ${run.total})`,
  ]
  for (const result of run.results) {
    lines.push(
      `${result.status === 'passed' ? 'PASS' : result.status === 'failed' ? 'FAIL' : 'ERROR'}  ${result.name}`,
    )
    if (result.error) lines.push(`      error: ${result.error}`)
    for (const verdict of result.verdicts)
      lines.push(`      ${verdict.passed ? 'ok  ' : 'FAIL'} ${verdict.expectation.type}: ${verdict.reason}`)
  }
  if (run.error) lines.push(`error: ${run.error}`)
  process.stdout.write(`${lines.join('\n')}\n`)
}

const main = async () => {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      version: { type: 'string' },
      test: { type: 'string', multiple: true },
      'base-url': { type: 'string' },
      timeout: { type: 'string', default: '900' },
      'poll-ms': { type: 'string', default: '1000' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) {
    process.stdout.write(`${USAGE}\n`)
    return 0
  }
  const [agentId] = positionals
  if (!agentId || positionals.length > 1) return fail(USAGE)
  const apiKey = process.env.PARLEY_API_KEY
  if (!apiKey) return fail(`PARLEY_API_KEY is not set\n${USAGE}`)
  const baseUrl = values['base-url'] ?? process.env.PARLEY_BASE_URL ?? 'http://localhost:3000'
  const version = parseVersion(values.version)
  const deadline = Date.now() + Number(values.timeout) * 1000

  const client = createParleyClient({ baseUrl, apiKey })
  const started = unwrap(
    await client.api.POST('/v1/agents/{agentId}/test-runs', {
      params: { path: { agentId } },
      body: {
        ...(version !== undefined ? { version } : {}),
        ...(values.test ? { testIds: values.test } : {}),
      },
    }),
  ).data
  process.stderr.write(
    `Started test run ${started.id} (${started.total} tests)${started.runner === 'voice_worker' ? ', run by the voice worker (npm run agent must be running)' : ''}\n`,
  )
  let run: Run = started
  while (run.status === 'queued' || run.status === 'running') {
    if (Date.now() > deadline)
      return fail(`The run ${run.id} did not finish in time (${run.done} of ${run.total} done)`)
    await new Promise((resolve) => setTimeout(resolve, Number(values['poll-ms']) || 1000))
    run = unwrap(
      await client.api.GET('/v1/agents/{agentId}/test-runs/{runId}', {
        params: { path: { agentId, runId: run.id } },
      }),
    ).data
  }
  printRun(run)
  if (run.status === 'error') return 2
  return run.status === 'passed' ? 0 : 1
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ParleyError) fail(error.message)
    fail(`The tests could not run: ${error instanceof Error ? error.message : String(error)}`)
  },
)
