import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import { createParser } from 'eventsource-parser'

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is open-ended JSON.
type Json = Record<string, any>

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i

/** What one exchange was: the request as sent and the response as received (body read as text). */
export type Exchange = {
  method: string
  url: string
  requestContentType?: string | undefined
  requestBody?: unknown
  status: number
  headers: Headers
  text: string
}

/**
 * Checks real exchanges against an OpenAPI document, as a validating proxy would: the operation
 * and the status must be documented, the response's media type must be one documented, its body
 * (JSON, or each event of a Server-Sent Events stream) must fit the schema, a rate-limited
 * operation's answers carry the rate-limit headers, and a request body must fit its schema
 * exactly when the server took it (a 2xx to a body the document calls invalid, or a 400
 * validation_error to a body the document calls valid, is a disagreement).
 */
export const createOpenApiCheck = (document: Json) => {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false })
  ajv.addFormat('date-time', DATE_TIME)
  ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/)
  ajv.addFormat('email', /^[^\s@]+@[^\s@]+$/)
  ajv.addFormat('uri', /^[a-z][a-z0-9+.-]*:/i)
  ajv.addSchema({ $id: 'openapi', components: document.components }, 'openapi')
  const compiled = new Map<Json, ValidateFunction>()
  const validatorOf = (schema: Json) => {
    let validate = compiled.get(schema)
    if (!validate) {
      const rooted = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'))
      validate = ajv.compile(rooted)
      compiled.set(schema, validate)
    }
    return validate
  }
  const templates = Object.keys(document.paths)
    .map((path) => ({
      path,
      pattern: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`),
      params: (path.match(/\{/g) ?? []).length,
    }))
    .sort((a, b) => a.params - b.params)

  const violations: string[] = []
  /** operationId → the statuses seen. */
  const seen = new Map<string, Set<number>>()
  let exchanges = 0

  const errorsOf = (validate: ValidateFunction) =>
    (validate.errors ?? [])
      .slice(0, 3)
      .map((error) => `${error.instancePath || '/'} ${error.message}`)
      .join('; ')

  const check = (exchange: Exchange) => {
    exchanges += 1
    const { pathname } = new URL(exchange.url, 'http://localhost')
    const method = exchange.method.toLowerCase()
    const where = `${method.toUpperCase()} ${pathname} → ${exchange.status}`
    const template = templates.find(
      (candidate) => candidate.pattern.test(pathname) && document.paths[candidate.path][method],
    )
    if (!template) {
      violations.push(`${where}: no operation documents it`)
      return
    }
    const operation = document.paths[template.path][method] as Json
    const id = operation.operationId as string
    seen.set(id, (seen.get(id) ?? new Set()).add(exchange.status))

    const requestMedia = exchange.requestContentType?.split(';')[0]?.trim()
    const requestSchema =
      requestMedia === 'application/json'
        ? operation.requestBody?.content?.['application/json']?.schema
        : undefined
    if (requestSchema && exchange.requestBody !== undefined) {
      const validate = validatorOf(requestSchema)
      const fits = validate(exchange.requestBody)
      if (!fits && exchange.status < 300)
        violations.push(`${where}: accepted a body the document refuses (${errorsOf(validate)})`)
      if (fits && exchange.status === 400 && exchange.text.includes('"validation_error"'))
        violations.push(`${where}: refused a body the document allows: ${exchange.text.slice(0, 200)}`)
    }

    const response = operation.responses[String(exchange.status)] as Json | undefined
    if (!response) {
      violations.push(`${where}: status not documented for ${id} ${exchange.text.slice(0, 160)}`)
      return
    }
    const declaredHeaders = Object.keys(response.headers ?? {})
    for (const name of declaredHeaders)
      if (!exchange.headers.has(name)) violations.push(`${where}: documented header ${name} missing`)

    const media = exchange.headers.get('content-type')?.split(';')[0]?.trim() ?? ''
    const content = (response.content ?? {}) as Record<string, Json>
    if (exchange.text === '' && Object.keys(content).length === 0) return
    const documented = content[media]
    if (!documented) {
      violations.push(
        `${where}: media type ${media || '(none)'} not documented (${Object.keys(content).join(', ')})`,
      )
      return
    }
    if (media === 'text/event-stream') {
      const eventSchema = documented.schema?.contentSchema as Json | undefined
      if (!eventSchema) return
      const validate = validatorOf(eventSchema)
      const parser = createParser({
        onEvent: (message) => {
          const event = {
            event: message.event ?? 'message',
            ...(message.id ? { id: Number(message.id) } : {}),
            data: JSON.parse(message.data),
          }
          const name = event.event
          if (!validate(event)) violations.push(`${where}: event ${name} ${errorsOf(validate)}`)
        },
      })
      parser.feed(exchange.text)
      return
    }
    if (media !== 'application/json') return
    const validate = validatorOf(documented.schema)
    let body: unknown
    try {
      body = JSON.parse(exchange.text)
    } catch {
      violations.push(`${where}: body is not JSON`)
      return
    }
    if (!validate(body)) violations.push(`${where}: ${errorsOf(validate)} in ${exchange.text.slice(0, 200)}`)
  }

  /** Every operation of the document, as `operationId`. */
  const operations = () =>
    Object.values(document.paths as Record<string, Record<string, Json>>).flatMap((operations) =>
      Object.values(operations).map((operation) => operation.operationId as string),
    )

  return { check, violations, seen, operations, count: () => exchanges }
}

export type OpenApiCheck = ReturnType<typeof createOpenApiCheck>
