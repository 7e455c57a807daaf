import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import type { RouteTable } from '../src/http/route-table.ts'
import { createKey, signUp } from './helpers/accounts.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/**
 * Property-based fuzzing of every route in the route table: inputs are generated from each
 * route's own zod schemas (right shapes with edge values) mixed with hostile strings, and the
 * server must never answer 500 (503 only names a dependency the test server lacks). One shared server; runs per route are bounded to keep it cheap.
 */

const hostileStrings = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  '%zz',
  '%E0%A4%A',
  '%00',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '𝕏'.repeat(300),
  'x'.repeat(70_000),
  '',
  ' ',
  '-1',
  '1e309',
  'NaN',
  'null',
  '{}',
  '__proto__',
]

const hostile = fc.oneof(
  fc.constantFrom(...hostileStrings),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string(), { maxKeys: 3 }),
)

type Def = { type: string; [key: string]: unknown }
const defOf = (schema: z.ZodType) => (schema as unknown as { def: Def }).def

/** A value shaped like `schema` wants, with edge values, or now and then something hostile. */
const fromSchema = (schema: z.ZodType, depth = 0): fc.Arbitrary<unknown> => {
  const def = defOf(schema)
  const wrapped = (inner: unknown) => fromSchema(inner as z.ZodType, depth + 1)
  const shaped = ((): fc.Arbitrary<unknown> => {
    if (depth > 6) return fc.constant(null)
    switch (def.type) {
      case 'object': {
        const shape = def.shape as Record<string, z.ZodType>
        return fc.record(
          Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, fromSchema(v, depth + 1)])),
          {
            requiredKeys: [],
          },
        )
      }
      case 'optional':
      case 'nullable':
      case 'default':
      case 'readonly':
      case 'catch':
      case 'nonoptional':
        return fc.oneof(wrapped(def.innerType), fc.constant(undefined))
      case 'pipe':
        return fc.oneof(wrapped(def.in), wrapped(def.out))
      case 'union':
        return fc.oneof(...(def.options as z.ZodType[]).map((option) => fromSchema(option, depth + 1)))
      case 'array':
        return fc.array(wrapped(def.element), { maxLength: 4 })
      case 'record':
        return fc.dictionary(fc.string({ maxLength: 10 }), wrapped(def.valueType), { maxKeys: 3 })
      case 'enum':
        return fc.constantFrom(...Object.values(def.entries as Record<string, string>))
      case 'literal':
        return fc.constantFrom(...(def.values as unknown[]))
      case 'string':
        return fc.oneof(
          fc.string({ maxLength: 30 }),
          fc.constantFrom('+14155550123', 'https://example.com/x', 'a@b.co'),
        )
      case 'number':
      case 'int':
        return fc.oneof(fc.integer({ min: -5, max: 200 }), fc.double())
      case 'boolean':
        return fc.boolean()
      default:
        return fc.anything({ maxDepth: 2 })
    }
  })()
  return fc.oneof({ arbitrary: shaped, weight: 4 }, { arbitrary: hostile, weight: 1 })
}

/** encodeURIComponent, except that a lone surrogate goes out as the invalid UTF-8 it would be. */
const encode = (text: string) => {
  try {
    return encodeURIComponent(text)
  } catch {
    return '%ED%A0%80'
  }
}

const pathSegment = fc.oneof(
  fc.string({ maxLength: 30 }).map(encode),
  fc.constantFrom('%zz', '%E0%A4%A', '%00', '%C0%AF', '01JZZZZZZZZZZZZZZZZZZZZZZZ', 'a'.repeat(500)),
)

const asQuery = (value: unknown) => {
  if (value === null || typeof value !== 'object') return ''
  const pairs = Object.entries(value as Record<string, unknown>).map(
    ([k, v]) => `${encode(k)}=${encode(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))}`,
  )
  return pairs.length > 0 ? `?${pairs.join('&')}` : ''
}

let server: TestServer
let table: RouteTable | undefined
let credentials: Record<string, Record<string, string>>
beforeAll(async () => {
  server = await startTestServer({
    env: { ROLE: 'api' },
    extendApp: ({ routes }) => {
      table = routes
    },
  })
  const owner = await signUp(server)
  const key = (await createKey(server, owner.token)).key
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
  credentials = {
    none: {},
    studio: bearer(owner.token),
    operator: bearer(server.config.adminToken),
    apiKey: { 'x-api-key': key },
    chatSessionCreator: { 'x-api-key': key },
    voiceSessionCreator: { 'x-api-key': key },
    chatSession: bearer('not-a-session-token'),
    worker: bearer('not-the-worker-token'),
  }
})
afterAll(async () => {
  await server.destroy()
})

describe('fuzzing every route', () => {
  it('answers no 500 to inputs built from its schemas and hostile strings', async () => {
    const routes = table?.definitions ?? []
    expect(routes.length).toBeGreaterThan(30)
    const failures: string[] = []
    for (const route of routes) {
      const input = fc.record({
        segments: fc.array(pathSegment, { minLength: 4, maxLength: 4 }),
        query: route.query ? fromSchema(route.query) : fc.constant(undefined),
        body: route.body ? fromSchema(route.body) : fc.constant(undefined),
      })
      await fc
        .assert(
          fc.asyncProperty(input, async ({ segments, query, body }) => {
            let index = 0
            const path = route.path.replace(/\{\w+\}/g, () => segments[index++ % segments.length] ?? 'x')
            const hasBody = route.method !== 'get' && route.method !== 'delete'
            const response = await server.request(`${path}${asQuery(query)}`, {
              method: route.method.toUpperCase(),
              headers: {
                ...credentials[route.auth],
                ...(hasBody ? { 'content-type': 'application/json' } : {}),
              },
              ...(hasBody ? { body: JSON.stringify(body ?? {}) } : {}),
            })
            const text = await response.text()
            // 503 is a dependency this test server lacks (LiveKit, a worker), not a crash.
            const isCrash = response.status >= 500 && response.status !== 503
            if (isCrash) failures.push(`${route.method} ${path} → ${response.status} ${text}`)
            return !isCrash
          }),
          { numRuns: 8, endOnFailure: true },
        )
        .catch((error: unknown) => {
          throw new Error(`${route.method} ${route.path}: ${failures.at(-1)?.slice(0, 300)}`, {
            cause: error,
          })
        })
    }
    expect(failures).toEqual([])
  }, 600_000)
})
