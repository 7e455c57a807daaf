import { gzipSync } from 'node:zlib'

/**
 * The malformed requests of `npm run bench -- probe`, built from the served OpenAPI document alone
 * (so the same probe runs against any version of the server): bad path segments, query values,
 * bodies, fields, credentials, encodings, multipart forms and CSV files, forged cursors.
 */

export type Schema = { [key: string]: unknown }
export type Parameter = { name: string; in: string; schema?: Schema }
export type Operation = {
  parameters?: Parameter[]
  requestBody?: { content: Record<string, { schema: Schema }> }
  security?: Array<Record<string, unknown>>
}
export type OpenApi = {
  paths: Record<string, Record<string, Operation>>
  components?: { schemas?: Record<string, Schema> }
}
export type Endpoint = { method: string; path: string; operation: Operation }
export type ProbeRequest = {
  method: string
  path: string
  headers: Record<string, string>
  body?: string | Uint8Array<ArrayBuffer>
  /** What was malformed, for the report. */
  label: string
}

export const endpointsOf = (doc: OpenApi): Endpoint[] =>
  Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      operation,
    })),
  )

const resolve = (doc: OpenApi, schema: Schema): Schema => {
  const ref = schema.$ref
  if (typeof ref !== 'string') return schema
  return doc.components?.schemas?.[ref.replace('#/components/schemas/', '')] ?? {}
}

/** A value shaped as `schema` wants, from the document's own examples (every field has one). */
export const exampleOf = (doc: OpenApi, raw: Schema, depth = 0): unknown => {
  const schema = resolve(doc, raw)
  if (depth > 8) return null
  if ('example' in schema) return schema.example
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0]
  if ('default' in schema) return schema.default
  if (Array.isArray(schema.enum)) return schema.enum[0]
  if ('const' in schema) return schema.const
  const options = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined
  if (options) {
    const option = options.find((candidate) => resolve(doc, candidate).type !== 'null') ?? options[0]
    return option ? exampleOf(doc, option, depth + 1) : null
  }
  if (Array.isArray(schema.allOf))
    return Object.assign({}, ...schema.allOf.map((part) => exampleOf(doc, part as Schema, depth + 1)))
  const type = Array.isArray(schema.type) ? schema.type.find((name) => name !== 'null') : schema.type
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>
      return Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [name, exampleOf(doc, property, depth + 1)]),
      )
    }
    case 'array':
      return schema.items ? [exampleOf(doc, schema.items as Schema, depth + 1)] : []
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1
    case 'boolean':
      return true
    case 'string':
      if (schema.format === 'date-time') return new Date(Date.now() + 86_400_000).toISOString()
      if (schema.format === 'email') return 'probe@example.com'
      return 'probe'
    default:
      return null
  }
}

export const jsonBodyOf = (doc: OpenApi, operation: Operation) => {
  const schema = operation.requestBody?.content['application/json']?.schema
  return schema ? exampleOf(doc, schema) : undefined
}

const pathSegments = [
  '%zz',
  '%00',
  'a%00b',
  '%C0%AF',
  '%E0%A4%A',
  '%ED%A0%80',
  'x'.repeat(600),
  '..%2F..%2Fetc%2Fpasswd',
  '%F0%9F%92%A9',
  '-1',
  "'%20OR%201%3D1%20--",
  '__proto__',
  'constructor',
]

const queryValues = [
  '%00',
  'a%00b',
  '%zz',
  'x'.repeat(5000),
  '-1',
  '1e309',
  'NaN',
  '%5B%5D',
  '%7B%7D',
  '__proto__',
  '%ED%A0%80',
]

/** Cursors as a client could forge them: impossible dates, year 0, odd offsets, NUL ids, junk. */
export const forgedCursors = [
  ['2026-02-30T00:00:00Z', '01JD4MC3N0000000000000000A'],
  ['0000-01-01T00:00:00Z', '01JD4MC3N0000000000000000A'],
  ['2026-01-01T00:00:00+23:59', '01JD4MC3N0000000000000000A'],
  ['2026-01-01T00:00:00-15:59', '01JD4MC3N0000000000000000A'],
  ['2026-01-01T24:00:00Z', '01JD4MC3N0000000000000000A'],
  ['2026-01-01T00:00:00.1234567Z', '01JD4MC3N0000000000000000A'],
  ['2026-01-01T00:00:00Z', 'a\u0000b'],
  ['2026-01-01T00:00:00Z', '\ud800'],
  ['2026-01-01T00:00:00Z', 7],
  ['9999-12-31T23:59:59Z', ''],
]
  .map((pair) => Buffer.from(JSON.stringify(pair)).toString('base64url'))
  .concat(['not-a-cursor', Buffer.from('{"a":1}').toString('base64url')])

/** A string holding bytes that are not UTF-8, as raw JSON text. */
const invalidUtf8Json = (fieldJson: string) =>
  new Uint8Array(
    Buffer.concat([Buffer.from(`{${fieldJson}:"`), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]),
  )

const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`

const fieldValues: Array<[string, unknown]> = [
  ['NUL', 'a\u0000b'],
  ['100k characters', 'x'.repeat(100_000)],
  ['lone surrogate', '\ud800'],
  ['negative', -1],
  ['huge number', 1e308],
  ['object', { nested: { deeper: true } }],
  ['array', [1, 'two', null]],
  ['null', null],
  ['boolean', true],
  ['deep nesting', JSON.parse(nested(40))],
]

type Build = {
  doc: OpenApi
  /** Headers of the right credentials for an operation. */
  credentialsOf: (operation: Operation) => Record<string, string>
  /** A real id for a path parameter, where using it harms nothing the probe still needs. */
  realPath: (endpoint: Endpoint) => string
  /** The example body with real ids in it, so a malformed field is read past the lookups. */
  withRealIds: (body: unknown) => unknown
}

const withQuery = (path: string, query: string) => `${path}${path.includes('?') ? '&' : '?'}${query}`

/** Every malformed request for every operation of the document. */
export const malformedRequests = ({ doc, credentialsOf, realPath, withRealIds }: Build): ProbeRequest[] => {
  const requests: ProbeRequest[] = []
  for (const endpoint of endpointsOf(doc)) {
    const { method, path, operation } = endpoint
    const credentials = credentialsOf(operation)
    const hasBody = method !== 'GET' && method !== 'DELETE'
    const example = withRealIds(jsonBodyOf(doc, operation))
    const json = (body: unknown) => ({
      headers: { ...credentials, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    const exampleBody = hasBody && example !== undefined ? json(example) : { headers: credentials }
    const add = (label: string, request: Omit<ProbeRequest, 'method' | 'label'>) =>
      requests.push({ method, label, ...request })
    const real = realPath(endpoint)

    const pathParams = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path')
    if (pathParams.length > 0)
      for (const segment of pathSegments)
        add(`path ${segment.slice(0, 20)}`, { path: path.replace(/\{\w+\}/g, segment), ...exampleBody })

    for (const parameter of (operation.parameters ?? []).filter((candidate) => candidate.in === 'query'))
      for (const value of [...queryValues, ...(parameter.name === 'cursor' ? forgedCursors : [])])
        add(`query ${parameter.name}=${value.slice(0, 20)}`, {
          path: withQuery(real, `${parameter.name}=${value}`),
          ...exampleBody,
        })
    for (const query of ['unknownParameter=1', '__proto__%5Bpolluted%5D=1', 'limit=1&limit=2'])
      add(`query ${query}`, { path: withQuery(real, query), ...exampleBody })

    for (const [label, headers] of [
      ['no credentials', {}],
      ['malformed bearer', { authorization: 'Bearer a b c' }],
      ['long bearer', { authorization: `Bearer ${'x'.repeat(5000)}` }],
      ['basic auth', { authorization: 'Basic cHJvYmU6cHJvYmU=' }],
      ['JWT-shaped junk', { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.' }],
      ['two different keys', { authorization: 'Bearer one-key', 'x-api-key': 'another-key' }],
    ] as const)
      add(`auth ${label}`, {
        path: real,
        headers: { ...headers, ...(hasBody ? { 'content-type': 'application/json' } : {}) },
        ...(hasBody && example !== undefined ? { body: JSON.stringify(example) } : {}),
      })

    if (!hasBody) continue
    const raw = (
      label: string,
      body: string | Uint8Array<ArrayBuffer>,
      headers: Record<string, string> = {},
    ) =>
      add(label, {
        path: real,
        headers: { ...credentials, 'content-type': 'application/json', ...headers },
        body,
      })
    raw('body invalid JSON', '{"a":')
    raw('body empty', '')
    for (const text of ['null', '[]', '1', '"text"', 'true']) raw(`body ${text}`, text)
    raw('body __proto__ key', '{"__proto__":{"polluted":true}}')
    raw('body constructor key', '{"constructor":{"prototype":{"polluted":true}}}')
    raw('body unknown field', JSON.stringify({ ...(example as object), unknownField: 1 }))
    raw('body NUL key', '{"a\\u0000b":1}')
    raw('body invalid UTF-8', invalidUtf8Json('"name"'))
    raw('body nested 5000', nested(5000))
    raw('body over 1 MiB', JSON.stringify({ name: 'x'.repeat(1_100_000) }))
    raw('body BOM', `\ufeff${JSON.stringify(example ?? {})}`)
    raw('content-type text/plain', JSON.stringify(example ?? {}), { 'content-type': 'text/plain' })
    raw('content-type xml', '<a/>', { 'content-type': 'application/xml' })
    raw('charset utf-16', JSON.stringify(example ?? {}), {
      'content-type': 'application/json; charset=utf-16',
    })
    raw('charset latin1', JSON.stringify(example ?? {}), {
      'content-type': 'application/json; charset=latin1',
    })
    raw('gzip garbage', 'not gzip at all', { 'content-encoding': 'gzip' })
    raw('gzip truncated', new Uint8Array(gzipSync(JSON.stringify(example ?? {})).subarray(0, 12)), {
      'content-encoding': 'gzip',
    })
    raw('deflate garbage', 'not deflate', { 'content-encoding': 'deflate' })
    raw('br garbage', 'not brotli at all', { 'content-encoding': 'br' })
    raw('encoding zstd', JSON.stringify(example ?? {}), { 'content-encoding': 'zstd' })
    raw('body cut short', JSON.stringify(example ?? {}).slice(0, 3))

    if (example && typeof example === 'object' && !Array.isArray(example))
      for (const field of Object.keys(example))
        for (const [label, value] of fieldValues)
          raw(`field ${field} ${label}`, JSON.stringify({ ...example, [field]: value }))

    if (operation.requestBody?.content['multipart/form-data'])
      requests.push(...multipartRequests(endpoint, credentials, (example ?? {}) as Record<string, unknown>))
  }
  return requests
}

/** A multipart body written byte by byte (fields may carry bytes FormData never sends). */
const multipart = (fields: Array<[string, string | Buffer]>, file: string | Buffer | null) => {
  const boundary = 'probe-boundary-7d1'
  const parts = fields.map(([name, value]) =>
    Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`),
      Buffer.from(value),
      Buffer.from('\r\n'),
    ]),
  )
  const filePart =
    file === null
      ? []
      : [
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="c.csv"\r\nContent-Type: text/csv\r\n\r\n`,
          ),
          Buffer.from(file),
          Buffer.from('\r\n'),
        ]
  return {
    body: new Uint8Array(Buffer.concat([...parts, ...filePart, Buffer.from(`--${boundary}--\r\n`)])),
    contentType: `multipart/form-data; boundary=${boundary}`,
  }
}

const multipartRequests = (
  endpoint: Endpoint,
  credentials: Record<string, string>,
  example: Record<string, unknown>,
): ProbeRequest[] => {
  const fields: Array<[string, string]> = [
    ['fromPhoneNumberId', String(example.fromPhoneNumberId ?? 'probe')],
    ['name', 'Probe campaign'],
  ]
  const csv = 'phone,name,note\n+14155550111,Ada,first\n'
  const latin1 = Buffer.from('phone,name\n+14155550111,Jos\xe9\n', 'latin1')
  const variants: Array<[string, Array<[string, string | Buffer]>, string | Buffer | null]> = [
    ['field name NUL', [fields[0] as [string, string], ['name', 'a\u0000b']], csv],
    ['field description NUL', [...fields, ['description', 'a\u0000b']], csv],
    ['field fromPhoneNumberId NUL', [['fromPhoneNumberId', 'a\u0000b'], fields[1] as [string, string]], csv],
    ['field name invalid UTF-8', [fields[0] as [string, string], ['name', Buffer.from([0x4a, 0xe9])]], csv],
    ['field description invalid UTF-8', [...fields, ['description', Buffer.from([0xc3, 0x28])]], csv],
    ['field named __proto__', [...fields, ['__proto__', 'x']], csv],
    ['unknown field', [...fields, ['unknownField', 'x']], csv],
    ['CSV cell NUL', fields, 'phone,note\n+14155550111,a\u0000b\n'],
    ['CSV header NUL', fields, 'phone,no\u0000te\n+14155550111,x\n'],
    ['CSV not UTF-8', fields, latin1],
    [
      'CSV cut mid-character',
      fields,
      Buffer.concat([Buffer.from('phone,name\n+14155550111,A'), Buffer.from([0xe2, 0x82])]),
    ],
    ['CSV __proto__ column', fields, 'phone,__proto__\n+14155550111,x\n'],
    ['CSV constructor column', fields, 'phone,constructor\n+14155550111,x\n'],
    ['CSV 200 columns', fields, `phone,${Array.from({ length: 199 }, (_, i) => `c${i}`).join(',')}\n+1\n`],
    ['CSV unclosed quote', fields, 'phone\n"+14155550111\n'],
    ['CSV empty', fields, ''],
    ['no file', fields, null],
  ]
  const requests: ProbeRequest[] = variants.map(([label, formFields, file]) => {
    const { body, contentType } = multipart(formFields, file)
    return {
      method: endpoint.method,
      path: endpoint.path,
      label: `multipart ${label}`,
      headers: { ...credentials, 'content-type': contentType },
      body,
    }
  })
  const { body } = multipart(fields, csv)
  requests.push(
    {
      method: endpoint.method,
      path: endpoint.path,
      label: 'multipart no boundary',
      headers: { ...credentials, 'content-type': 'multipart/form-data' },
      body,
    },
    {
      method: endpoint.method,
      path: endpoint.path,
      label: 'multipart cut short',
      headers: { ...credentials, 'content-type': 'multipart/form-data; boundary=probe-boundary-7d1' },
      body: body.subarray(0, 60),
    },
  )
  return requests
}
