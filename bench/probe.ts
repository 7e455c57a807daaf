import { type ChildProcess, fork } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { privateIpv6 } from '../server/test/helpers/special-addresses.ts'
import {
  type Endpoint,
  endpointsOf,
  jsonBodyOf,
  malformedRequests,
  type OpenApi,
  type Operation,
  type ProbeRequest,
} from './probe-requests.ts'
import { ALLOWED_HOST, prepareTenant, type Tenant } from './probe-tenants.ts'

/**
 * `npm run bench -- probe`: an adversarial run against a throwaway server on loopback (embedded
 * database unless DATABASE_URL is set, Redis when REDIS_URL is): malformed requests over every
 * operation of the served OpenAPI document, every id-taking operation tried by one organization
 * with another's ids, SSRF URLs as function endpoints and webhook URLs, and every answer and log
 * line searched for secrets. Prints counts by status class, every 500, every leak. The server runs
 * in a process of its own and its log is read from its stdout. Nothing leaves the machine: the only
 * outbound host configured is a name no one resolves, and every SSRF URL must be refused at save.
 */

type Answer = { request: ProbeRequest; status: number; text: string }

const CONCURRENCY = 8

const startServer = async () => {
  const child: ChildProcess = fork(fileURLToPath(new URL('./probe-server.ts', import.meta.url)), {
    execArgv: ['--import', 'tsx'],
    silent: true,
    env: {
      ...process.env,
      BENCH_SERVER_ENV: JSON.stringify({
        LOG_LEVEL: 'info',
        OUTBOUND_ALLOW_HOSTS: ALLOWED_HOST,
        KEY_FAILURES_PER_ADDRESS: '999999',
        SIGNIN_ATTEMPTS_PER_ADDRESS: '999999',
        SIGNIN_ATTEMPTS_PER_ACCOUNT: '999999',
        SIGNUPS_PER_ADDRESS: '999999',
      }),
    },
  })
  const logLines: string[] = []
  let partial = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n')
    partial = lines.pop() ?? ''
    logLines.push(...lines)
  })
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk))
  const [ready] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`the probe's server exited (${code}) before it was ready`)
    }),
  ])) as [{ url: string; adminToken: string; secrets: string[] }]
  const stop = async () => {
    child.send({ type: 'stop' })
    await once(child, 'exit')
  }
  return { ...ready, logLines, stop }
}

const send = async (base: string, request: ProbeRequest): Promise<Answer> => {
  try {
    const response = await fetch(`${base}${request.path}`, {
      method: request.method,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body }),
    })
    return { request, status: response.status, text: await response.text() }
  } catch (error) {
    // The client itself refused to send it (a header it will not write): nothing reached the server.
    return { request, status: 0, text: String(error) }
  }
}

const sendAll = async (base: string, requests: ProbeRequest[]) => {
  const answers: Answer[] = []
  let next = 0
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests.length) {
        const request = requests[next++] as ProbeRequest
        answers.push(await send(base, request))
      }
    }),
  )
  return answers
}

const classesOf = (answers: Answer[]) => {
  const counts: Record<string, number> = {}
  for (const { status } of answers) {
    const name = status === 0 ? 'not sent' : `${Math.floor(status / 100)}xx`
    counts[name] = (counts[name] ?? 0) + 1
  }
  return Object.entries(counts)
    .sort()
    .map(([name, count]) => `${name} ${count}`)
    .join(', ')
}

/** Credentials of `tenant` for an operation: its first security scheme, or `scheme` when given. */
const credentialsOf = (tenant: Tenant, operation: Operation, scheme?: string): Record<string, string> => {
  switch (scheme ?? Object.keys(operation.security?.[0] ?? {})[0]) {
    case 'studioSession':
      return { authorization: `Bearer ${tenant.token}` }
    case 'secretKeyBearer':
      return { authorization: `Bearer ${tenant.key}` }
    case 'secretKeyHeader':
    case 'widgetKey':
      return { 'x-api-key': tenant.key }
    case 'chatSessionToken':
      return { authorization: `Bearer ${tenant.sessionToken}` }
    case 'studioTokenHeader':
      return { 'x-studio-token': tenant.token }
    case 'workerToken':
    case 'adminToken':
      return { authorization: 'Bearer not-the-token' }
    default:
      return {}
  }
}

/** `tenant`'s id for a path or query parameter, by its name and the path it is in. */
const idOf = (tenant: Tenant, name: string, path: string): string => {
  if (name === 'orgId' || name === 'organizationId') return tenant.organizationId
  if (name === 'agentId') return tenant.agentId
  if (name === 'functionId') return tenant.functionId
  if (name === 'phoneNumberId') return tenant.phoneNumberId
  if (name === 'batchJobId') return tenant.batchJobId
  if (name === 'conversation_id' || name === 'conversationId') return tenant.conversationId
  if (name === 'id' && path.startsWith('/api/export')) return tenant.exportId
  if (name === 'id' && path.startsWith('/api/api-keys')) return tenant.keyId
  if (name === 'id') return tenant.organizationId
  return tenant.conversationId
}

const fillPath = (tenant: Tenant, path: string) =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => idOf(tenant, name, path))

/** Ids a body names, replaced with `tenant`'s. */
const withIdsOf = (tenant: Tenant, body: unknown): unknown => {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body
  const replaced: Record<string, unknown> = { ...(body as Record<string, unknown>) }
  const ids: Record<string, unknown> = {
    agent_id: tenant.agentId,
    agentId: tenant.agentId,
    fromPhoneNumberId: tenant.phoneNumberId,
    outboundAgentId: tenant.pipelineAgentId,
    handoffAgentIds: [tenant.agentId],
    functionId: tenant.functionId,
    conversation_id: tenant.conversationId,
    conversationId: tenant.conversationId,
  }
  for (const name of Object.keys(replaced)) if (name in ids) replaced[name] = ids[name]
  return replaced
}

/** Operations another organization must not reach: all that take an id, in the path or the query. */
const crossTenantRequests = (doc: OpenApi, owner: Tenant, intruder: Tenant): ProbeRequest[] =>
  endpointsOf(doc).flatMap(({ method, path, operation }: Endpoint) => {
    const schemes = (operation.security ?? []).map((scheme) => Object.keys(scheme)[0] as string)
    if (path.startsWith('/admin') || schemes.includes('workerToken') || schemes.length === 0) return []
    const idQuery = (operation.parameters ?? []).filter(
      (parameter) => parameter.in === 'query' && /Id$/.test(parameter.name),
    )
    const example = jsonBodyOf(doc, operation)
    const bodyNamesIds =
      example !== null &&
      typeof example === 'object' &&
      JSON.stringify(withIdsOf(owner, example)) !== JSON.stringify(example)
    if (!path.includes('{') && idQuery.length === 0 && !bodyNamesIds) return []
    const query = idQuery
      .map((parameter) => `${parameter.name}=${idOf(owner, parameter.name, path)}`)
      .join('&')
    const hasBody = method !== 'GET' && method !== 'DELETE'
    // Every credential the operation takes, each a try of its own.
    return [
      ...new Set(
        schemes.map((scheme) =>
          scheme === 'secretKeyBearer' || scheme === 'widgetKey' ? 'secretKeyHeader' : scheme,
        ),
      ),
    ].map(
      (scheme): ProbeRequest => ({
        method,
        path: `${fillPath(owner, path)}${query ? `?${query}` : ''}`,
        label: `cross-tenant as ${scheme}`,
        headers: {
          ...credentialsOf(intruder, operation, scheme),
          ...(hasBody ? { 'content-type': 'application/json' } : {}),
        },
        ...(hasBody ? { body: JSON.stringify(withIdsOf(owner, example ?? {})) } : {}),
      }),
    )
  })

/** An answer leaks when it succeeds on another's id in its path, or shows what the caller did not send. */
const leaksOf = (answers: Answer[], owner: Tenant) =>
  answers.filter(({ request, status, text }) => {
    const sent = `${request.path} ${typeof request.body === 'string' ? request.body : ''}`
    const pathNamesOwner = owner.traces.some((trace) => request.path.split('?')[0]?.includes(trace))
    const shows = owner.traces.some((trace) => text.includes(trace) && !sent.includes(trace))
    return (pathNamesOwner && status >= 200 && status < 300) || shows
  })

/** Addresses no customer URL may reach, in the forms URL parsers and resolvers accept. */
const ssrfUrls = [
  'https://127.0.0.1/x',
  'https://127.1/x',
  'https://0177.0.0.1/x',
  'https://0x7f.0.0.1/x',
  'https://2130706433/x',
  'https://0x7f000001/x',
  'https://127.0.0.1.:8443/x',
  'https://0.0.0.0/x',
  'https://0/x',
  'https://10.0.0.1/x',
  'https://172.16.0.1/x',
  'https://192.168.0.1/x',
  'https://169.254.169.254/latest/meta-data/',
  'https://100.64.0.1/x',
  'https://198.18.0.1/x',
  'https://192.0.0.1/x',
  'https://192.0.2.1/x',
  'https://224.0.0.1/x',
  'https://240.0.0.1/x',
  'https://255.255.255.255/x',
  'https://localhost/x',
  'https://localhost:8443/x',
  'https://user:secret@127.0.0.1/x',
  'http://127.0.0.1/x',
  'ftp://127.0.0.1/x',
  'file:///etc/passwd',
  'gopher://127.0.0.1:6379/_INFO',
  'data:text/plain,probe',
  ...privateIpv6.map(([address]) => `https://[${address}]:8443/x`),
]

const ssrfRequests = (owner: Tenant): ProbeRequest[] =>
  ssrfUrls.flatMap((url, at): ProbeRequest[] => [
    {
      method: 'POST',
      path: `/api/custom-functions/${owner.agentId}`,
      label: `SSRF function endpoint ${url}`,
      headers: { 'x-api-key': owner.key, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: `ssrf_${at}`,
        label: 'SSRF',
        description: 'Probe',
        endpoint: url,
        parameters: { type: 'object', properties: {} },
      }),
    },
    {
      method: 'PATCH',
      path: `/v1/agents/${owner.agentId}`,
      label: `SSRF webhook URL ${url}`,
      headers: { 'x-api-key': owner.key, 'content-type': 'application/json' },
      body: JSON.stringify({ webhookUrl: url }),
    },
  ])

const print = (line = '') => process.stdout.write(`${line}\n`)

const listed = (answers: Answer[], limit = 25) => {
  for (const { request, status, text } of answers.slice(0, limit))
    print(
      `    ${request.method} ${request.path.slice(0, 90)} [${request.label.slice(0, 60)}] → ${status} ${text.slice(0, 120)}`,
    )
  if (answers.length > limit) print(`    … and ${answers.length - limit} more`)
}

/** A safe id to keep in the path of a malformed request: never one whose request would end it. */
const realPathOf =
  (owner: Tenant) =>
  ({ method, path }: Endpoint) =>
    method === 'DELETE' || /\/(revoke|disable|cancel|end|stop)$/.test(path)
      ? path.replace(/\{\w+\}/g, 'unknown-id')
      : fillPath(owner, path)

export const run = async () => {
  const server = await startServer()
  try {
    const owner = await prepareTenant(server.url, { label: 'A', adminToken: server.adminToken })
    const intruder = await prepareTenant(server.url, { label: 'B', adminToken: server.adminToken })
    const doc = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as OpenApi
    const operations = endpointsOf(doc).length
    print(
      `probe: ${operations} operations at ${server.url} (${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}${process.env.REDIS_URL ? ' + Redis' : ''})`,
    )

    // Before the malformed requests, which change the owner's data on purpose.
    const cross = await sendAll(server.url, crossTenantRequests(doc, owner, intruder))
    const leaks = leaksOf(cross, owner)
    print(`cross-tenant tries: ${cross.length} (${classesOf(cross)}); leaks: ${leaks.length}`)
    listed(leaks)
    const succeeded = cross.filter(
      (answer) => answer.status >= 200 && answer.status < 300 && !leaks.includes(answer),
    )
    if (succeeded.length > 0)
      print(`  2xx without a leak (the intruder's own lists, filtered by the owner's ids):`)
    listed(succeeded)
    listed(cross.filter((answer) => answer.status >= 500))

    const ssrf = await sendAll(server.url, ssrfRequests(owner))
    const accepted = ssrf.filter((answer) => answer.status >= 200 && answer.status < 300)
    print(
      `SSRF URLs: ${ssrfUrls.length}, each as a function endpoint and a webhook URL (${classesOf(ssrf)}); accepted: ${accepted.length}`,
    )
    listed(accepted)

    const requests = malformedRequests({
      doc,
      credentialsOf: (operation) => credentialsOf(owner, operation),
      realPath: realPathOf(owner),
      withRealIds: (body) => withIdsOf(owner, body),
    })
    const started = performance.now()
    const malformed = await sendAll(server.url, requests)
    const crashes = malformed.filter((answer) => answer.status >= 500 && answer.status !== 503)
    print(
      `malformed requests: ${malformed.length} over ${operations} operations in ${((performance.now() - started) / 1000).toFixed(1)} s (${classesOf(malformed)}); 500s: ${crashes.length}`,
    )
    listed(crashes)
    const unavailable = malformed.filter((answer) => answer.status === 503)
    if (unavailable.length > 0)
      print(`  503 (a dependency this server lacks: LiveKit, a worker): ${unavailable.length}`)

    const secrets = [...owner.secrets, ...intruder.secrets, ...server.secrets]
    const everyAnswer = [...cross, ...ssrf, ...malformed]
    const shown = everyAnswer.filter(({ text }) => secrets.some((secret) => text.includes(secret)))
    print(`answers holding a secret: ${shown.length} of ${everyAnswer.length}`)
    listed(shown)

    await server.stop()
    const lines = server.logLines.filter((line) => line.startsWith('{'))
    const levels = lines.map((line) => (JSON.parse(line) as { level: number }).level)
    const logged = lines.filter((line) => secrets.some((secret) => line.includes(secret)))
    print(
      `log lines: ${lines.length}; at error level: ${levels.filter((level) => level >= 50).length}; holding a secret: ${logged.length}`,
    )
    for (const line of lines.filter((_, at) => (levels[at] ?? 0) >= 50).slice(0, 10))
      print(`    ${line.slice(0, 200)}`)
  } catch (error) {
    await server.stop()
    throw error
  }
}
