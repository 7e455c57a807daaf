import { createRequire } from 'node:module'
import express, { type Router } from 'express'

const require = createRequire(import.meta.url)
// The path alone: the package's main module would also evaluate its 2 MB browser bundles in the
// server's heap, where every full collection then marks them.
const swaggerUiDirectory = (require('swagger-ui-dist/absolute-path.js') as () => string)()

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Parley API reference</title>
  <link rel="icon" href="/favicon.ico" type="image/svg+xml">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/start.js"></script>
</body>
</html>`

// A separate file, not an inline script, so the page runs under helmet's default CSP.
const startScript = `window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#reference', deepLinking: true })`

/** `/docs`: a readable reference rendered from /v1/openapi.json with assets served locally. */
export const createDocsRouter = (): Router => {
  const router = express.Router()
  router.get('/', (_req, res) => {
    res.type('html').send(page)
  })
  router.get('/start.js', (_req, res) => {
    res.type('application/javascript').send(startScript)
  })
  router.use('/assets', express.static(swaggerUiDirectory, { index: false, maxAge: '1d' }))
  return router
}
