import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi'
import { ZDetailError, ZStudioError, ZV1Error } from '@parley/shared'
import type { Express, Request, RequestHandler, Response } from 'express'
import { type MatchFunction, match } from 'path-to-regexp'
import { ZodObject, ZodUnion, z } from 'zod'
import { AppError } from './app-error.ts'
import { errorAreaOf } from './error-handler.ts'
import { runHandlers } from './handler-chain.ts'

/** The credential a route requires; each maps to middleware and an OpenAPI security scheme. */
export type AuthKind =
  | 'none'
  | 'studio'
  | 'operator'
  | 'apiKey'
  | 'chatSessionCreator'
  | 'voiceSessionCreator'
  | 'chatSession'
  | 'worker'

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'
type AnyObject = z.ZodObject
type Infer<T> = T extends z.ZodType ? z.output<T> : undefined

export type RouteDefinition<
  Params extends AnyObject | undefined,
  Query extends AnyObject | undefined,
  Body extends z.ZodType | undefined,
  Result extends z.ZodType,
> = {
  method: Method
  /** OpenAPI form, e.g. `/api/organizations/{orgId}/members`. */
  path: string
  summary: string
  tag: string
  auth: AuthKind
  params?: Params
  query?: Query
  body?: Body
  /** A multipart/form-data form the route also takes, documented beside the JSON body (parsed in `before`). */
  multipartBody?: z.ZodType
  /** Success status; 200 unless given. */
  status?: number
  response: Result
  /** The success body's media type; JSON unless given (the chat stream is text/event-stream). */
  responseContentType?: string
  /** Request headers to document (e.g. Idempotency-Key). */
  headers?: AnyObject
  /** Middleware run after authentication, before the handler (idempotency, extra rate limits). */
  before?: RequestHandler[]
  /** Error statuses worth documenting beyond the ones every route may answer. */
  errors?: number[]
  handle: (input: {
    params: Infer<Params>
    query: Infer<Query>
    body: Infer<Body>
    req: Request
    res: Response
  }) => Promise<z.input<Result>> | z.input<Result>
}

const securityOf: Record<AuthKind, RouteConfig['security']> = {
  none: [],
  studio: [{ studioSession: [] }],
  operator: [{ adminToken: [] }],
  apiKey: [{ secretKeyBearer: [] }, { secretKeyHeader: [] }, { studioSession: [] }],
  chatSessionCreator: [
    { secretKeyHeader: [] },
    { secretKeyBearer: [] },
    { widgetKey: [] },
    { studioTokenHeader: [] },
  ],
  voiceSessionCreator: [
    { secretKeyHeader: [] },
    { secretKeyBearer: [] },
    { widgetKey: [] },
    { studioTokenHeader: [] },
  ],
  chatSession: [{ chatSessionToken: [] }],
  worker: [{ workerToken: [] }],
}

const errorSchemaFor = (path: string) =>
  ({ v1: ZV1Error, studio: ZStudioError, detail: ZDetailError })[errorAreaOf(path)]

const errorDescriptions: Record<number, string> = {
  400: 'Invalid input',
  401: 'Missing or invalid credentials',
  402: 'Insufficient credits',
  403: 'Insufficient permissions',
  404: 'Not found',
  409: 'Conflict',
  413: 'Body too large',
  429: 'Rate limited',
  500: 'Internal error',
  503: 'Dependency unavailable',
}

/**
 * The schema a request is checked with: objects refuse fields they do not name, at the top
 * level of every body and query, so a typo or the other surface's vocabulary is a 400 naming it
 * rather than a 200 that changed nothing. Nested free-form objects keep their own rules.
 */
const strictInput = (schema: z.ZodType): z.ZodType => {
  if (schema instanceof ZodObject) {
    return schema._zod.def.catchall === undefined ? schema.strict() : schema
  }
  if (schema instanceof ZodUnion) {
    return schema.clone({
      ...schema._zod.def,
      options: schema._zod.def.options.map((option) => strictInput(option as z.ZodType)),
    })
  }
  return schema
}

const noFields = z.object({})

/**
 * Whether the request URL has a query string: without one, a route that takes no query has
 * nothing to check (express would parse the URL again to make `req.query` an empty object).
 */
const hasQuery = (req: Request) => req.url.includes('?')

/** A JSON object sent to a route that takes no body; raw bodies (webhooks) are the route's own. */
const refuseObjectBody = (value: unknown) => {
  if (value !== null && typeof value === 'object' && !Array.isArray(value))
    parse(noFields.strict(), value, 'body')
  return undefined
}

const capitalize = (word: string) => `${word[0]?.toUpperCase() ?? ''}${word.slice(1)}`

/**
 * A stable, unique operationId from the method and path, for client generators:
 * `patch /v1/agents/{agentId}` → `patchV1AgentsByAgentId`.
 */
export const operationIdOf = (method: string, path: string) =>
  method +
  path
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      const param = segment.match(/^\{(\w+)\}$/)?.[1]
      const words = (param ?? segment).split(/[^A-Za-z0-9]+/).filter(Boolean)
      return (param ? 'By' : '') + words.map(capitalize).join('')
    })
    .join('')

const parse = <T extends z.ZodType>(
  schema: T | undefined,
  value: unknown,
  where: 'body' | 'query' | 'path',
) => {
  if (!schema) return undefined
  const result = schema.safeParse(value ?? {})
  if (!result.success) throw AppError.fromZod(result.error, where)
  return result.data
}

/** A request path's first two segments, lowercased as express matches them (not case sensitive). */
const leadingSegmentsOf = (path: string): [string, string | undefined] => {
  const firstEnd = path.indexOf('/', 1)
  if (firstEnd === -1) return [path.slice(1).toLowerCase(), undefined]
  const secondEnd = path.indexOf('/', firstEnd + 1)
  return [
    path.slice(1, firstEnd).toLowerCase(),
    path.slice(firstEnd + 1, secondEnd === -1 ? undefined : secondEnd).toLowerCase(),
  ]
}

/** A path segment that is a parameter (or none), in OpenAPI's form or express's. */
const isParam = (segment: string | undefined) =>
  segment === undefined || segment.startsWith('{') || segment.startsWith(':')

/**
 * What express's Router decodes a path parameter with (router/lib/layer.js): a malformed escape
 * is a URIError with status 400, which the error handler answers as such.
 */
const decodeParam = (value: string) => {
  if (value.length === 0 || !value.includes('%')) return value
  try {
    return decodeURIComponent(value)
  } catch (error) {
    if (error instanceof URIError) Object.assign(error, { status: 400, statusCode: 400 })
    throw error
  }
}

type Mounted = {
  method: Method
  /** Express's form, `/v1/agents/:agentId`: metrics and traces label requests with it (req.route.path). */
  path: string
  /** Express's own matcher with its Router's defaults: not case sensitive, one trailing slash allowed. */
  match: MatchFunction<Partial<Record<string, string>>>
  route: { path: string; methods: Partial<Record<Method, true>> }
  handlers: RequestHandler[]
}

/**
 * The routes a request may match, by method, first path segment and second (all lowercased): a
 * route whose second segment is a parameter (or that has none) is a candidate for every second
 * segment, and `any` holds those alone for a second segment no route names. Candidates keep the
 * order the routes were added in, so the first that matches is the one express would have served.
 */
type Candidates = { bySecond: Map<string, Mounted[]>; any: Mounted[] }

const candidatesOf = (routes: Mounted[]): Candidates => {
  const seconds = routes.map(({ path }) => path.split('/')[2]?.toLowerCase())
  const any = routes.filter((_route, i) => isParam(seconds[i]))
  const bySecond = new Map<string, Mounted[]>()
  for (const second of new Set(seconds.filter((second) => !isParam(second))) as Set<string>)
    bySecond.set(
      second,
      routes.filter((_route, i) => seconds[i] === second || isParam(seconds[i])),
    )
  return { bySecond, any }
}

/**
 * The middleware that serves a request by its route, or passes it on; `layers` lists what it serves
 * as express's own route layers would (`route.path` in express's form, `route.methods`).
 */
export type RouteDispatch = RequestHandler & { layers: () => Array<{ route: Mounted['route'] }> }

/**
 * A route's JSON answer, written as it is. express's res.json would also hash every body for a
 * weak ETag and look for a conditional request: the API's answers are live data read for one
 * caller, which no client revalidates (Stripe's and OpenAI's APIs send no ETag either), and the
 * hash cost every answer a SHA-1 of its body.
 */
const writeJson = (res: Response, statusCode: number, result: unknown) => {
  // A middleware may stand in for res.json on this answer (idempotency records it before it goes).
  if (Object.hasOwn(res, 'json')) {
    res.status(statusCode).json(result)
    return
  }
  res.statusCode = statusCode
  if (statusCode === 204 || statusCode === 304) {
    res.end()
    return
  }
  res.setHeader('Content-Type', 'application/json; charset=utf-8')
  const body = JSON.stringify(result) ?? ''
  // Node counts the body it sends; to HEAD it sends none, so the length GET would have is said here.
  if (res.req.method === 'HEAD') res.setHeader('Content-Length', Buffer.byteLength(body))
  res.end(body)
}

/**
 * Mounts routes on express and describes them in OpenAPI from the same definition, so the
 * document cannot drift from what is served. Handlers get parsed input and return the body.
 */
export class RouteTable {
  /** Every route, in the order it was added. */
  private readonly mounted: Mounted[] = []
  /** Built from `mounted` on first use, again after a route is added: method → first segment → candidates. */
  private index: Map<string, Map<string, Candidates>> | null = null

  /** What was mounted, in order: the fuzz test walks every route with its own schemas. */
  readonly definitions: Array<
    Pick<
      RouteDefinition<AnyObject | undefined, AnyObject | undefined, z.ZodType | undefined, z.ZodType>,
      'method' | 'path' | 'auth' | 'params' | 'query' | 'body' | 'multipartBody'
    >
  > = []

  constructor(
    app: Express,
    private readonly registry: OpenAPIRegistry,
    private readonly authentication: Record<AuthKind, RequestHandler[]>,
  ) {
    // Where the routes go in the middleware chain: one layer, wherever the table is made.
    app.use(this.dispatch)
  }

  private indexNow() {
    if (this.index !== null) return this.index
    const byMethod = new Map<string, Map<string, Mounted[]>>()
    for (const route of this.mounted) {
      const first = (route.path.split('/')[1] as string).toLowerCase()
      const bySegment = byMethod.get(route.method) ?? new Map<string, Mounted[]>()
      bySegment.set(first, [...(bySegment.get(first) ?? []), route])
      byMethod.set(route.method, bySegment)
    }
    this.index = new Map(
      [...byMethod].map(([method, bySegment]) => [
        method,
        new Map([...bySegment].map(([first, routes]) => [first, candidatesOf(routes)])),
      ]),
    )
    return this.index
  }

  /** The routes a request may match, in the order they were added (HEAD is served by GET, as express does). */
  private candidatesFor(method: string, path: string): Mounted[] | undefined {
    const bySegment = this.indexNow().get(method === 'HEAD' ? 'get' : method.toLowerCase())
    if (bySegment === undefined) return undefined
    const [first, second] = leadingSegmentsOf(path)
    const candidates = bySegment.get(first)
    if (candidates === undefined) return undefined
    return (second === undefined ? undefined : candidates.bySecond.get(second)) ?? candidates.any
  }

  /**
   * Serves the request by the first route whose method and path match, with express's matcher and
   * the params, `req.params` and `req.route` express's Router would give it; a route that passes
   * the request on hands it to the next match, and the last to the static pages and the 404.
   * No route answers OPTIONS (CORS preflights are answered before), so those pass on at once, as
   * they did through every route, to the 404.
   */
  private readonly dispatch: RouteDispatch = Object.assign(
    (req: Request, res: Response, next: (error?: unknown) => void) => {
      const candidates = req.method === 'OPTIONS' ? undefined : this.candidatesFor(req.method, req.path)
      if (candidates === undefined) {
        next()
        return
      }
      const path = req.path
      let index = 0
      const tryNext = (error?: unknown) => {
        if (error) {
          next(error)
          return
        }
        for (; index < candidates.length; index++) {
          const route = candidates[index] as Mounted
          const matched = route.match(path)
          if (matched === false) continue
          index++
          req.params = matched.params as Request['params']
          req.route = route.route
          runHandlers(route.handlers, req, res, tryNext)
          return
        }
        next()
      }
      tryNext()
    },
    { layers: () => this.mounted.map(({ route }) => ({ route })) },
  )

  /**
   * Documents an event Parley sends to customers' endpoints (OpenAPI 3.1 `webhooks`): its name,
   * what it means, its signed JSON body.
   */
  addWebhook({ event, summary, payload }: { event: string; summary: string; payload: z.ZodType }) {
    this.registry.registerWebhook({
      method: 'post',
      path: event,
      operationId: operationIdOf('receive', event),
      summary,
      tags: ['Webhooks'],
      // The receiver checks X-Parley-Signature; Parley presents no credential of its own.
      security: [],
      request: {
        headers: z.object({
          'x-parley-signature': z
            .string()
            .meta({ description: 't=<unix seconds>,v1=<hex HMAC-SHA256(webhookSecret, t + "." + body)>' }),
          'x-parley-event': z.string().meta({ description: 'The event name' }),
          'x-parley-delivery': z.string().meta({ description: 'The delivery id (GET …/webhook-deliveries)' }),
        }),
        body: { content: { 'application/json': { schema: payload } }, required: true },
      },
      responses: {
        200: { description: 'Any 2xx answer counts as delivered; others are retried (5 attempts)' },
      },
    })
  }

  add<
    Params extends AnyObject | undefined = undefined,
    Query extends AnyObject | undefined = undefined,
    Body extends z.ZodType | undefined = undefined,
    Result extends z.ZodType = z.ZodType,
  >(route: RouteDefinition<Params, Query, Body, Result>): void {
    this.definitions.push({
      method: route.method,
      path: route.path,
      auth: route.auth,
      params: route.params,
      query: route.query,
      body: route.body,
      multipartBody: route.multipartBody,
    })
    const status = route.status ?? 200
    const errorSchema = errorSchemaFor(route.path)
    const errorStatuses = [
      ...new Set([
        400,
        ...(route.auth === 'none' ? [] : [401]),
        ...(route.auth === 'apiKey' ? [429] : []),
        ...(route.errors ?? []),
        500,
      ]),
    ]
    this.registry.registerPath({
      method: route.method,
      path: route.path,
      operationId: operationIdOf(route.method, route.path),
      summary: route.summary,
      tags: [route.tag],
      security: securityOf[route.auth],
      request: {
        ...(route.params ? { params: route.params } : {}),
        ...(route.query ? { query: route.query } : {}),
        ...(route.headers ? { headers: route.headers } : {}),
        ...(route.body
          ? {
              body: {
                content: {
                  'application/json': { schema: route.body },
                  ...(route.multipartBody ? { 'multipart/form-data': { schema: route.multipartBody } } : {}),
                },
                required: true,
              },
            }
          : {}),
      },
      responses: {
        [status]: {
          description: route.summary,
          content: { [route.responseContentType ?? 'application/json']: { schema: route.response } },
        },
        ...Object.fromEntries(
          errorStatuses.map((code) => [
            code,
            {
              description: errorDescriptions[code] ?? 'Error',
              content: { 'application/json': { schema: errorSchema } },
            },
          ]),
        ),
      },
    })

    // A route that takes no query or body still names what it was sent: nothing is known.
    const querySchema = strictInput(route.query ?? noFields)
    const bodySchema = route.body ? strictInput(route.body) : undefined
    const send = (res: Response, result: unknown) => {
      // A handler may pick another status itself (readiness answers 503 with a body).
      if (!res.headersSent) writeJson(res, res.statusCode === 200 ? status : res.statusCode, result)
    }
    // A handler that answers at once is answered at once, without a promise and a turn of the
    // microtask queue; express passes a throw or a rejection alike to the error handler.
    const handler: RequestHandler = (req, res) => {
      const params = parse(route.params, req.params, 'path') as Infer<Params>
      const query = (
        route.query === undefined && !hasQuery(req) ? {} : parse(querySchema, req.query, 'query')
      ) as Infer<Query>
      const body = (
        bodySchema ? parse(bodySchema, req.body, 'body') : refuseObjectBody(req.body)
      ) as Infer<Body>
      const result = route.handle({ params, query, body, req, res })
      if (result instanceof Promise) return result.then((value) => send(res, value))
      send(res, result)
    }
    const first = route.path.split('/')[1]
    if (!first || isParam(first)) throw new Error(`A route's path starts with a fixed segment: ${route.path}`)
    const expressPath = route.path.replace(/\{(\w+)\}/g, ':$1')
    this.mounted.push({
      method: route.method,
      path: expressPath,
      match: match(expressPath.replace(/\/+$/, ''), {
        sensitive: false,
        end: true,
        trailing: true,
        decode: decodeParam,
      }),
      route: { path: expressPath, methods: { [route.method]: true } },
      handlers: [...this.authentication[route.auth], ...(route.before ?? []), handler],
    })
    this.index = null
  }
}
