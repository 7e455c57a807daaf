import type { NextFunction, Request, RequestHandler, Response } from 'express'
import { match } from 'path-to-regexp'

/**
 * Runs handlers one after another as express runs a route's or a Router's layers: a throw or a
 * rejected promise is passed on like `next(error)`, `next()` goes on to the next handler, and
 * `done` gets the first error or, after the last handler, nothing. `next('route')` ends the chain
 * as it ends an express route (done with nothing), `next('router')` likewise. Each express layer
 * a request walks costs it a few µs (bench/middleware.ts); this is the same order without them.
 */
export const runHandlers = (
  handlers: readonly RequestHandler[],
  req: Request,
  res: Response,
  done: (error?: unknown) => void,
) => {
  let index = 0
  const next: NextFunction = (error?: unknown) => {
    if (error === 'route' || error === 'router') {
      done()
      return
    }
    if (error) {
      done(error)
      return
    }
    const handler = handlers[index++]
    if (handler === undefined) {
      done()
      return
    }
    try {
      const result: unknown = handler(req, res, next)
      if (result instanceof Promise)
        result.then(undefined, (rejection: unknown) => next(rejection || new Error('Rejected promise')))
    } catch (thrown) {
      next(thrown)
    }
  }
  next()
}

/** One express layer that runs `handlers` in order (see runHandlers). */
export const inOrder =
  (handlers: readonly RequestHandler[]): RequestHandler =>
  (req, res, next) =>
    runHandlers(handlers, req, res, next)

/**
 * `handler` for the paths `app.use(path, handler)` would give it (express's matcher and defaults:
 * the path and everything under it, not case sensitive), others passed on. Unlike express it
 * leaves `req.url` whole: for handlers that do not read it (CORS, body parsers).
 */
export const atPath = (path: string, handler: RequestHandler): RequestHandler => {
  const matches = match(path, { sensitive: false, end: false, trailing: true })
  return (req, res, next) => {
    if (matches(req.path) === false) next()
    else return handler(req, res, next)
  }
}
