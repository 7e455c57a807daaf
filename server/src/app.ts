import type { IncomingMessage, ServerResponse } from 'node:http'
import { fileURLToPath } from 'node:url'
import cors from 'cors'
import express, { type Express, type RequestHandler } from 'express'
import { registerAdminRoutes } from './admin/index.ts'
import { registerAgentTestRoutes } from './agent-tests/index.ts'
import {
  agentActorOf,
  registerAgentVersionRoutes,
  registerStudioAgentRoutes,
  registerV1AgentRoutes,
} from './agents/index.ts'
import { registerAuditRoutes } from './audit/index.ts'
import { registerBatchControlRoutes, registerBatchRoutes } from './batch/index.ts'
import { registerCallRoutes } from './calls/index.ts'
import { authenticateChatSession, registerChatRoutes } from './chat/index.ts'
import type { AppContext } from './context.ts'
import { registerConversationRoutes } from './conversations/index.ts'
import { registerDoNotCallRoutes } from './do-not-call/index.ts'
import { registerExportRoutes } from './export/index.ts'
import { registerFunctionRoutes } from './functions/index.ts'
import { createAuthentication } from './http/authentication.ts'
import { handleErrors, handleUnknownRoute } from './http/error-handler.ts'
import { atPath, inOrder } from './http/handler-chain.ts'
import { requireHttps } from './http/https-guard.ts'
import { guardParsedBody, guardRequestLine, requireUtf8Body } from './http/input-guard.ts'
import { requestContext } from './http/request-context.ts'
import { RouteTable } from './http/route-table.ts'
import { applySecurityHeaders, securityHeadersByPath } from './http/security-headers.ts'
import { createSettingsRedirect, createStudioRouter } from './http/studio.ts'
import { registerSystemRoutes } from './http/system-routes.ts'
import { authenticateApiKey, registerKeyRoutes } from './keys/index.ts'
import { registerKnowledgeRoutes } from './knowledge/index.ts'
import { measureRequest, registerMetricsRoutes } from './metrics/index.ts'
import { createDocsRouter } from './openapi/docs-page.ts'
import { createRegistry, generateDocument } from './openapi/document.ts'
import { authenticateStudioToken, registerOrganizationRoutes, v1RateLimitOf } from './orgs/index.ts'
import { registerPhoneNumberRoutes } from './phone-numbers/index.ts'
import { registerRetentionRoutes } from './retention/index.ts'
import type { DemoTenant } from './seed/index.ts'
import { createDemoRouter, createFaviconRouter, serveWidget } from './seed/index.ts'
import { traceRequests } from './tracing/index.ts'
import { registerVoiceRoutes, registerWorkerRoutes } from './voice/index.ts'
import { registerWebhookRoutes } from './webhooks/index.ts'

export const JSON_BODY_LIMIT = '1mb'

const demoDirectory = fileURLToPath(new URL('../../demo/public', import.meta.url))
const widgetDirectory = fileURLToPath(new URL('../../widget/dist', import.meta.url))
const studioDirectory = fileURLToPath(new URL('../../studio/dist', import.meta.url))

/** Paths mounted outside the route table: static pages, not API operations (see the OpenAPI test). */
export const staticMounts = ['/docs', '/demo', '/widget', '/studio', '/settings', '/favicon.ico'] as const

/** Mounts more routes on the same table and middleware chain (tests use it for probe routes). */
export type ExtendApp = (input: { routes: RouteTable; app: Express; ctx: AppContext }) => void

type AppOptions = {
  baseUrl: () => string
  readinessChecks: Record<string, () => Promise<void>>
  extend?: ExtendApp
  /** The seeded demo tenant, filled into the demo page; null when none was seeded. */
  demo?: DemoTenant | null
}

/** The spec's CORS for the chat API; preflights are answered here, before any authentication. */
const chatCors = cors({
  origin: '*',
  methods: ['GET', 'POST', 'OPTIONS'],
  // Idempotency-Key and Last-Event-ID let the widget resume a dropped reply (see the chat issue).
  allowedHeaders: [
    'Content-Type',
    'Authorization',
    'X-API-Key',
    'X-Studio-Token',
    'Origin',
    'Idempotency-Key',
    'Last-Event-ID',
  ],
  // A browser widget on another origin can read only these beyond the safelisted ones: the 429
  // countdown needs Retry-After.
  exposedHeaders: ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'],
  maxAge: 600,
})

/**
 * What runs on each request before express takes it: each gets the raw request and response and
 * must finish at once. When express still changed every request's and response's prototype as it
 * took them (before the server made them with those prototypes, http/express-classes.ts), each
 * property a handler added or read after that cost several times more: the request id and access
 * log cost ~35 µs a request as an express middleware and ~8 µs here (a bare app on the shared
 * 2-core machine; bench/middleware.ts shows the whole stack). These need nothing of express's.
 * One that throws hands its error to express, whose first layer passes it on to the error
 * handler: the request is answered 500 in its area's shape, never served without what the failed
 * handler (or the ones after it) would have added.
 */
type EarlyHandler = (req: IncomingMessage, res: ServerResponse) => void

const earlyFailures = new WeakMap<IncomingMessage, unknown>()

/**
 * Runs `handlers` on the raw request before express takes it; returns the express middleware
 * that hands on what one of them threw, to come first in the chain.
 */
const runBeforeExpress = (app: Express, handlers: EarlyHandler[]): RequestHandler => {
  type Handle = (req: IncomingMessage, res: ServerResponse, done?: unknown) => void
  const handled = app as unknown as { handle: Handle }
  const handle = handled.handle.bind(app)
  handled.handle = (req, res, done) => {
    try {
      for (const handler of handlers) handler(req, res)
    } catch (error) {
      earlyFailures.set(req, error)
    }
    handle(req, res, done)
  }
  return (req, _res, next) => {
    const error = earlyFailures.get(req)
    if (error === undefined) next()
    else next(error)
  }
}

/** Assembles the express app: security headers, body limits, every router, the error handler. */
export const createApp = (
  ctx: AppContext,
  { baseUrl, readinessChecks, extend, demo = null }: AppOptions,
): Express => {
  const app = express()
  app.disable('x-powered-by')
  // An array is copied: express keeps what it is given and the config is frozen.
  const { trustProxy } = ctx.config
  app.set('trust proxy', Array.isArray(trustProxy) ? [...trustProxy] : trustProxy)
  const requestLog = requestContext(ctx.logger, {
    probeSample: ctx.config.probeLogSample,
    requests: app.request,
  })
  // Where pages and their files are served (mounted below): they get helmet's defaults, every
  // other answer the API's set. Both are taken from helmet once (security-headers.ts).
  const pageRoots = {
    docs: '/docs',
    demo: '/demo',
    widget: '/widget',
    studio: '/studio',
    settings: '/settings',
    favicon: '/favicon.ico',
  } as const
  const securityHeadersOf = securityHeadersByPath(Object.values(pageRoots))
  const earlyFailure = runBeforeExpress(app, [
    (req, res) => requestLog(req, res),
    ...(ctx.config.metrics.isEnabled ? [measureRequest] : []),
    (req, res) => applySecurityHeaders(res, securityHeadersOf(req.url)),
  ])
  // gzip, deflate and br bodies are inflated, and the limit holds for the inflated bytes.
  const parseJson = express.json({ limit: JSON_BODY_LIMIT, verify: requireUtf8Body })
  // What every request goes through before its route, in this order, as one express layer: each
  // layer costs every request a few µs (bench/middleware.ts).
  app.use(
    inOrder([
      earlyFailure,
      // The request's span: everything the request does runs inside it (the access line finds its
      // trace by the request, see http/logger.ts).
      ...(ctx.config.tracing ? [traceRequests] : []),
      requireHttps({ isProduction: ctx.config.isProduction }),
      atPath('/v1/chat', chatCors),
      guardRequestLine,
      // LiveKit signs the exact bytes of its webhooks (application/webhook+json): keep them as text.
      atPath(
        '/livekit/webhook',
        express.text({ type: () => true, limit: JSON_BODY_LIMIT, verify: requireUtf8Body }),
      ),
      // A request with neither header has no body (RFC 9112 §6.3): the parser would look and pass,
      // and there would be no parsed body to check.
      (req, res, next) => {
        if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
          next()
          return
        }
        parseJson(req, res, (error?: unknown) => {
          if (error) {
            next(error)
            return
          }
          // The guard throws what it finds; one passed on as next's argument counts the same.
          let problem: unknown
          try {
            guardParsedBody(req, res, (passed?: unknown) => {
              problem = passed
            })
          } catch (thrown) {
            problem = thrown
          }
          next(problem)
        })
      },
    ]),
  )

  const registry = createRegistry()
  // Each area reads its own credentials; http/ gets them through this interface.
  const authentication = createAuthentication(ctx, {
    apiKey: authenticateApiKey,
    studioToken: authenticateStudioToken,
    v1RateLimitOf,
    chatSession: authenticateChatSession,
  })
  const routes = new RouteTable(app, registry, authentication)
  let document: unknown
  registerSystemRoutes(routes, {
    checks: readinessChecks,
    openapi: () => {
      document ??= generateDocument(registry, { serverUrl: baseUrl() })
      return document
    },
  })
  if (ctx.config.metrics.isEnabled) registerMetricsRoutes(routes, ctx.config.metrics)
  registerOrganizationRoutes(routes, ctx)
  registerAuditRoutes(routes, ctx, agentActorOf)
  registerRetentionRoutes(routes, ctx)
  registerAdminRoutes(routes, ctx)
  registerStudioAgentRoutes(routes, ctx)
  registerV1AgentRoutes(routes, ctx)
  registerAgentVersionRoutes(routes, ctx)
  registerAgentTestRoutes(routes, ctx)
  registerFunctionRoutes(routes, ctx)
  registerWebhookRoutes(routes, ctx)
  registerExportRoutes(routes, ctx)
  registerKeyRoutes(routes, ctx)
  registerChatRoutes(routes, ctx)
  registerBatchControlRoutes(routes, ctx)
  registerPhoneNumberRoutes(routes, ctx)
  registerDoNotCallRoutes(routes, ctx)
  registerVoiceRoutes(routes, ctx)
  registerCallRoutes(routes, ctx)
  registerConversationRoutes(routes, ctx)
  registerWorkerRoutes(routes, ctx)
  registerBatchRoutes(routes, ctx)
  registerKnowledgeRoutes(routes, ctx)
  extend?.({ routes, app, ctx })

  app.use(pageRoots.docs, createDocsRouter())
  app.use(
    pageRoots.demo,
    createDemoRouter({ directory: demoDirectory, tenant: demo, isVoiceOn: ctx.livekit !== null }),
  )
  app.use(pageRoots.widget, serveWidget(widgetDirectory))
  app.use(pageRoots.studio, createStudioRouter(studioDirectory))
  app.use(pageRoots.settings, createSettingsRedirect())
  app.use(pageRoots.favicon, createFaviconRouter(demoDirectory))
  app.use(handleUnknownRoute)
  app.use(handleErrors)
  return app
}
