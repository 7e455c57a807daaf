import { fileURLToPath } from 'node:url'
import express, { type Express } from 'express'
import helmet from 'helmet'
import { registerAdminRoutes } from './admin/routes.ts'
import { registerStudioAgentRoutes } from './agents/studio-routes.ts'
import type { AppContext } from './context.ts'
import { createAuthentication } from './http/authentication.ts'
import { handleErrors, handleUnknownRoute } from './http/error-handler.ts'
import { requestContext } from './http/request-context.ts'
import { RouteTable } from './http/route-table.ts'
import { registerSystemRoutes } from './http/system-routes.ts'
import { createDocsRouter } from './openapi/docs-page.ts'
import { createRegistry, generateDocument } from './openapi/document.ts'
import { registerOrganizationRoutes } from './orgs/routes.ts'

export const JSON_BODY_LIMIT = '1mb'

const demoDirectory = fileURLToPath(new URL('../../demo/public', import.meta.url))

/** Paths mounted outside the route table: static pages, not API operations (see the OpenAPI test). */
export const staticMounts = ['/docs', '/demo'] as const

type AppOptions = { baseUrl: () => string; readinessChecks: Record<string, () => Promise<void>> }

/** Assembles the express app: security headers, body limits, every router, the error handler. */
export const createApp = (ctx: AppContext, { baseUrl, readinessChecks }: AppOptions): Express => {
  const app = express()
  app.disable('x-powered-by')
  app.set('trust proxy', false)
  app.use(requestContext(ctx.logger))
  app.use(helmet())
  app.use(express.json({ limit: JSON_BODY_LIMIT }))

  const registry = createRegistry()
  const routes = new RouteTable(app, registry, createAuthentication(ctx))
  let document: unknown
  registerSystemRoutes(routes, {
    checks: readinessChecks,
    openapi: () => {
      document ??= generateDocument(registry, { serverUrl: baseUrl() })
      return document
    },
  })
  registerOrganizationRoutes(routes, ctx)
  registerAdminRoutes(routes, ctx)
  registerStudioAgentRoutes(routes, ctx)

  app.use('/docs', createDocsRouter())
  app.use('/demo', express.static(demoDirectory, { index: 'index.html' }))
  app.use(handleUnknownRoute)
  app.use(handleErrors)
  return app
}
