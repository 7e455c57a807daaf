import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import type { RouteTable } from '../src/http/route-table.ts'
import { createKey, signUp } from './helpers/accounts.ts'
import { createBatchTenant, rawMultipart } from './helpers/batch.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/**
 * Property-based fuzzing of every route in the route table: inputs are generated from each
 * route's own zod schemas (right shapes with edge values) mixed with hostile strings, and the
 * server must never answer 500 (503 only names a dependency the test server lacks). Routes that
 * take a form get multipart bodies with CSV files of hostile cells and bytes; routes that page by
 * cursor get crafted cursors. One shared server; runs per route are bounded to keep it cheap.
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

/** A timestamp as a client might forge one: real instants, impossible dates, odd offsets, junk. */
const forgedTime = fc.oneof(
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  {
    weight: 4,
    arbitrary: fc
      .record({
        year: fc.integer({ min: 0, max: 9999 }),
        month: fc.integer({ min: 0, max: 13 }),
        day: fc.integer({ min: 0, max: 32 }),
        hour: fc.integer({ min: 0, max: 25 }),
        minute: fc.integer({ min: 0, max: 61 }),
        fraction: fc.constantFrom('', '.1', '.123456', '.1234567'),
        zone: fc.constantFrom('Z', '+23:59', '-15:59', '+14:00', '+00:60', '', '+1400'),
      })
      .map(({ year, month, day, hour, minute, fraction, zone }) => {
        const two = (n: number) => String(n).padStart(2, '0')
        return `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}:00${fraction}${zone}`
      }),
  },
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom(...hostileStrings.filter((text) => text.length < 100)),
)
const forgedId = fc.oneof(
  { arbitrary: fc.stringMatching(/^[0-9A-Z]{26}$/), weight: 3 },
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom('a\u0000b', '', '\ud800', "' OR 1=1 --", '%00'),
  fc.integer(),
)
/** Cursors a client could craft: base64url JSON pairs of forged parts, other JSON, plain junk. */
const forgedCursor = fc.oneof(
  {
    arbitrary: fc
      .tuple(forgedTime, forgedId)
      .map((pair) => Buffer.from(JSON.stringify(pair)).toString('base64url')),
    weight: 4,
  },
  fc
    .anything({ maxDepth: 2 })
    .map((value) => Buffer.from(JSON.stringify(value) ?? 'null').toString('base64url')),
  fc.string({ maxLength: 60 }),
)

/** A CSV cell: phones, empties, quotes, NUL, line breaks, binary junk, the names objects treat specially. */
const csvCell = fc.oneof(
  fc.constantFrom(
    '+14155550111',
    '+14155550112',
    '+1415555',
    '',
    '"',
    'a"b',
    '"q,"',
    '\r\n',
    '\u0000',
    'é€𝕏',
  ),
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'phone', 'name', 'Phone '),
  fc.string({ unit: 'binary', maxLength: 12 }),
)
/** Bytes no text may hold spliced into `text`: NUL, or sequences that are not UTF-8. */
const spliced = (text: fc.Arbitrary<string>) =>
  fc
    .record({
      text,
      at: fc.nat(),
      bytes: fc.constantFrom(
        [0x00],
        [0xff],
        [0xc3, 0x28],
        [0xe2, 0x82],
        [0xed, 0xa0, 0x80],
        [0xef, 0xbb, 0xbf],
      ),
    })
    .map(({ text, at, bytes }) => {
      const encoded = Buffer.from(text)
      const cut = at % (encoded.length + 1)
      return Buffer.concat([encoded.subarray(0, cut), Buffer.from(bytes), encoded.subarray(cut)])
    })
const csvRow = fc.array(csvCell, { minLength: 1, maxLength: 5 }).map((cells) => cells.join(','))
/** A row of the usual file: a valid phone, then hostile cells. */
const contactRow = fc
  .tuple(fc.integer({ min: 100, max: 999 }), csvCell, csvCell)
  .map(([n, name, note]) => `+14155550${n},${name},${note}`)
/**
 * A file: mostly the usual header and valid phones with hostile cells (so the request goes all
 * the way), sometimes any rows, sometimes with bytes no text may hold spliced in.
 */
const csvText = fc
  .record({
    header: fc.oneof(
      { arbitrary: fc.constant('phone,name,note'), weight: 3 },
      { arbitrary: csvRow, weight: 1 },
    ),
    rows: fc.array(fc.oneof({ arbitrary: contactRow, weight: 3 }, { arbitrary: csvRow, weight: 1 }), {
      minLength: 1,
      maxLength: 6,
    }),
  })
  .map(({ header, rows }) => [header, ...rows].join('\n'))
const csvFile = fc.oneof(
  { arbitrary: csvText.map((text) => Buffer.from(text)), weight: 2 },
  { arbitrary: spliced(csvText), weight: 1 },
)
/** A form field's bytes: a fitting value, one with bytes no text may hold spliced in, hostile text, junk. */
const formValue = (fitting: string[]) =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...fitting).map((text) => Buffer.from(text)), weight: 4 },
    { arbitrary: spliced(fc.constantFrom(...fitting)), weight: 1 },
    {
      arbitrary: fc.constantFrom(...hostileStrings).map((text) => Buffer.from(text.slice(0, 2000))),
      weight: 1,
    },
    { arbitrary: fc.uint8Array({ maxLength: 12 }).map((bytes) => Buffer.from(bytes)), weight: 1 },
  )

let server: TestServer
let table: RouteTable | undefined
let credentials: Record<string, Record<string, string>>
let organizationId: string
let batchTenant: Awaited<ReturnType<typeof createBatchTenant>>
beforeAll(async () => {
  server = await startTestServer({
    env: { ROLE: 'api' },
    extendApp: ({ routes }) => {
      table = routes
    },
  })
  const owner = await signUp(server)
  organizationId = owner.organization.id
  const key = (await createKey(server, owner.token)).key
  batchTenant = await createBatchTenant(server)
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

  it('answers no 500 to multipart forms with hostile fields and CSV files', async () => {
    const routes = (table?.definitions ?? []).filter((route) => route.multipartBody)
    expect(routes.map((route) => route.path).sort()).toEqual([
      '/batch/create',
      '/batch/preview',
      '/v1/do-not-call/import',
      '/v1/knowledge/sources',
    ])
    const failures: string[] = []
    /** Absent most of the time: a field present is one more way for the request to stop early. */
    const sometimes = <T>(value: fc.Arbitrary<T>) =>
      fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: value, weight: 1 })
    const form = fc.record({
      fromPhoneNumberId: formValue([batchTenant.phoneNumberId]),
      name: formValue(['Spring renewals']),
      description: sometimes(formValue(['Customers up for renewal'])),
      timezone: sometimes(formValue(['UTC', 'Asia/Karachi'])),
      concurrentCallLimit: sometimes(formValue(['5'])),
      callingWindow: sometimes(formValue(['{"start":"09:00","end":"17:00","days":["mon"]}'])),
      extra: sometimes(fc.tuple(fc.constantFrom('__proto__', 'unknown', 'a\u0000b'), formValue(['x']))),
      file: csvFile,
    })
    /** A knowledge upload's form: the same hostile extras and files, its own fields. */
    const uploadForm = fc.record({
      kind: formValue(['file']),
      title: sometimes(formValue(['Opening hours'])),
      language: sometimes(formValue(['en', 'ur'])),
      extra: sometimes(fc.tuple(fc.constantFrom('__proto__', 'unknown', 'a\u0000b'), formValue(['x']))),
      file: csvFile,
    })
    /** A do-not-call import's form: the CSV file and the same hostile extras. */
    const importForm = fc.record({
      extra: sometimes(fc.tuple(fc.constantFrom('__proto__', 'unknown', 'a\u0000b'), formValue(['x']))),
      file: csvFile,
    })
    const formOf = (path: string) =>
      (path === '/v1/knowledge/sources'
        ? uploadForm
        : path === '/v1/do-not-call/import'
          ? importForm
          : form) as fc.Arbitrary<
        { file: Buffer; extra: [string, Buffer] | null } & Record<string, Buffer | null>
      >
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(formOf(route.path), async ({ file, extra, ...named }) => {
          const fields = Object.entries(named).flatMap(
            ([name, value]): Array<[string, Buffer]> => (value === null ? [] : [[name, value]]),
          )
          if (extra) fields.push(extra)
          const { body, contentType } = rawMultipart(fields, file)
          const response = await server.request(route.path, {
            method: 'POST',
            headers: { 'x-api-key': batchTenant.key, 'content-type': contentType },
            body,
          })
          const text = await response.text()
          const isCrash = response.status >= 500
          if (isCrash) failures.push(`${route.path} → ${response.status} ${text}`)
          return !isCrash
        }),
        {
          numRuns: route.path === '/batch/create' || route.path === '/batch/preview' ? 60 : 30,
          endOnFailure: true,
        },
      )
    }
    expect(failures).toEqual([])
  }, 120_000)

  it('answers no 500 to crafted cursors on every route that pages by cursor', async () => {
    const routes = (table?.definitions ?? []).filter(
      (route) => route.query && 'cursor' in (route.query as z.ZodObject).shape,
    )
    expect(routes.length).toBeGreaterThanOrEqual(3)
    const failures: string[] = []
    for (const route of routes) {
      const path = route.path.replace('{orgId}', organizationId)
      expect(path).not.toMatch(/\{/)
      await fc.assert(
        fc.asyncProperty(forgedCursor, async (cursor) => {
          const response = await server.request(`${path}?cursor=${encode(cursor)}`, {
            headers: credentials[route.auth],
          })
          const text = await response.text()
          const isCrash = response.status >= 500
          if (isCrash) failures.push(`${path} cursor=${cursor} → ${response.status} ${text}`)
          return !isCrash && response.status !== 404
        }),
        { numRuns: 40, endOnFailure: true },
      )
    }
    expect(failures).toEqual([])
  }, 120_000)
})
