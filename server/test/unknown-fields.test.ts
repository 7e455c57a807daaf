import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listMountedRoutes } from '../src/openapi/mounted-routes.ts'
import { createKey, signUp } from './helpers/accounts.ts'
import { createChatSession, createTextAgent } from './helpers/chat.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/**
 * Every route of the table, sent one field it does not know, answers 400 naming that field:
 * in the body for the methods that take one, in the query for the others.
 */
const UNKNOWN = 'parleyUnknownField'
const WORKER_TOKEN = randomBytes(24).toString('hex')
/** Bodies that are not ours to define: LiveKit's signed webhook is read as raw bytes. */
const exempt = new Set(['post /livekit/webhook'])

let server: TestServer
let credentials: Record<string, Record<string, string>>
let pathValues: Record<string, string>

beforeAll(async () => {
  server = await startTestServer({ env: { WORKER_TOKEN } })
  const session = await signUp(server)
  // One request per route, every route at once: more than a free organization's v1 budget a minute.
  const raised = await server.request(`/admin/organizations/${session.organization.id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${server.config.adminToken}` },
    json: { rateLimitPerMinute: 5000 },
  })
  if (raised.status !== 200) throw new Error(`raising the rate limit failed: ${raised.status}`)
  const { key } = await createKey(server, session.token)
  const agentId = await createTextAgent(server, key)
  const chat = await createChatSession(server, { key, agentId })
  credentials = {
    studioSession: { authorization: `Bearer ${session.token}` },
    adminToken: { authorization: `Bearer ${server.config.adminToken}` },
    apiKey: { authorization: `Bearer ${key}` },
    chatSessionCreator: { 'x-api-key': key },
    chatSessionToken: { authorization: `Bearer ${chat.session_token}` },
    workerToken: { authorization: `Bearer ${WORKER_TOKEN}` },
  }
  operations = (await (await server.request('/v1/openapi.json')).json()).paths
  pathValues = {
    conversation_id: chat.conversation_id,
    orgId: session.organization.id,
    agentId,
    version: '1',
    phoneNumber: '+14155550123',
  }
})
afterAll(async () => {
  await server.destroy()
})

type Operation = { security?: Record<string, string[]>[] }
let operations: Record<string, Record<string, Operation>>

/** The credential the document says the route takes (its first security scheme). */
const authOf = (path: string, method: string): Record<string, string> => {
  const scheme = Object.keys(operations[path]?.[method]?.security?.[0] ?? {})[0]
  switch (scheme) {
    case undefined:
      return {}
    case 'secretKeyBearer':
    case 'secretKeyHeader':
      return path === '/v1/chat/sessions' || path === '/v1/chat/voice-sessions'
        ? (credentials.chatSessionCreator ?? {})
        : (credentials.apiKey ?? {})
    default:
      return credentials[scheme] ?? {}
  }
}

describe('unknown fields', () => {
  it('are refused with 400 naming them on every route', async () => {
    const routes = listMountedRoutes(server.app).filter(
      ({ method, path }) => !exempt.has(`${method} ${path}`),
    )
    expect(routes.length).toBeGreaterThan(40)
    const answers = await Promise.all(
      routes.map(async ({ method, path }) => {
        const url = path.replace(/\{(\w+)\}/g, (_, name: string) => pathValues[name] ?? 'unknown-id')
        const hasBody = method !== 'get' && method !== 'delete'
        const response = await server.request(hasBody ? url : `${url}?${UNKNOWN}=1`, {
          method: method.toUpperCase(),
          headers: authOf(path, method),
          ...(hasBody ? { json: { [UNKNOWN]: 1 } } : {}),
        })
        const text = await response.text()
        return {
          route: `${method} ${path}`,
          status: response.status,
          namesField: text.includes(UNKNOWN),
          text,
        }
      }),
    )
    const wrong = answers.filter(({ status, namesField }) => status !== 400 || !namesField)
    expect(wrong).toEqual([])
  })

  it('lists every problem, each with its field, and the code on /api too', async () => {
    const session = await signUp(server)
    const response = await server.request('/api/api-keys', {
      method: 'POST',
      token: session.token,
      json: { type: 'nope', [UNKNOWN]: true, other: 2 },
    })
    expect(response.status).toBe(400)
    const body = (await response.json()) as { error: string; code: string; issues: { field: string }[] }
    expect(body.code).toBe('validation_error')
    expect(body.issues.map(({ field }) => field).sort()).toEqual(['name', 'other', UNKNOWN, 'type'].sort())
    for (const field of ['name', 'type', 'other', UNKNOWN]) expect(body.error).toContain(field)
  })
})
