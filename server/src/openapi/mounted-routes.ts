import type { Express } from 'express'

type Layer = { route?: { path: string | string[]; methods: Record<string, boolean> }; name?: string }

/** Every method + path mounted directly on the app, in OpenAPI's `{param}` form. */
export const listMountedRoutes = (app: Express): { method: string; path: string }[] => {
  const stack = (app as unknown as { router: { stack: Layer[] } }).router.stack
  return stack.flatMap((layer) => {
    if (!layer.route) return []
    const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path]
    const methods = Object.keys(layer.route.methods).filter((method) => layer.route?.methods[method])
    return paths.flatMap((path) =>
      methods.map((method) => ({ method, path: path.replace(/:(\w+)/g, '{$1}') })),
    )
  })
}

/** Routes mounted on the app that the OpenAPI document does not describe. */
export const findUndocumentedRoutes = (
  app: Express,
  document: { paths?: Record<string, Record<string, unknown>> },
) => listMountedRoutes(app).filter(({ method, path }) => document.paths?.[path]?.[method] === undefined)
