import type { Express } from 'express'

type Layer = {
  route?: { path: string | string[]; methods: Record<string, boolean> }
  name?: string
  /** The route table's dispatch (http/route-table.ts) serves its routes itself and lists them as layers. */
  handle?: { layers?: () => Layer[] }
}

const routesOf = (stack: Layer[]): { method: string; path: string }[] =>
  stack.flatMap((layer) => {
    if (typeof layer.handle?.layers === 'function') return routesOf(layer.handle.layers())
    if (!layer.route) return []
    const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path]
    const methods = Object.keys(layer.route.methods).filter((method) => layer.route?.methods[method])
    return paths.flatMap((path) =>
      methods.map((method) => ({ method, path: path.replace(/:(\w+)/g, '{$1}') })),
    )
  })

/** Every method + path mounted on the app (and the route table's own), in OpenAPI's `{param}` form. */
export const listMountedRoutes = (app: Express): { method: string; path: string }[] =>
  routesOf((app as unknown as { router: { stack: Layer[] } }).router.stack)

/** Routes mounted on the app that the OpenAPI document does not describe. */
export const findUndocumentedRoutes = (
  app: Express,
  document: { paths?: Record<string, Record<string, unknown>> },
) => listMountedRoutes(app).filter(({ method, path }) => document.paths?.[path]?.[method] === undefined)
