import { existsSync } from 'node:fs'
import { join } from 'node:path'
import express, { type RequestHandler, Router } from 'express'

/**
 * The studio web app (studio/dist, built by `npm run build`) under /studio/: its hashed assets
 * cached for good, and every other GET answered with index.html, so each studio URL can be
 * opened directly. Before a build the answer says how to make one.
 */
export const createStudioRouter = (directory: string) => {
  const router = Router()
  router.use(
    express.static(directory, {
      index: false,
      fallthrough: true,
      setHeaders: (res, path) => {
        res.set(
          'Cache-Control',
          path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
        )
      },
    }),
  )
  const page: RequestHandler = (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next()
    const index = join(directory, 'index.html')
    if (!existsSync(index)) {
      res.status(503).type('text').send('The studio is not built yet: run npm run build (npm start does it).')
      return
    }
    res.set('Cache-Control', 'no-cache').sendFile(index)
  }
  router.use(page)
  return router
}

/** The contract's `redirectUrl` (/settings/organization/provider-keys) is a studio page. */
export const createSettingsRedirect = () =>
  Router().use((req, res) => {
    res.redirect(302, `/studio/settings${req.url === '/' ? '' : req.url}`)
  })
