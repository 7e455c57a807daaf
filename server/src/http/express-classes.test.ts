import { createServer, IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requestClassesOf } from './express-classes.ts'

describe('request classes made with the app’s prototypes', () => {
  const app = express()
  const prototypes: Record<string, boolean[]> = {}
  app.get('/seen', (req, res) => {
    prototypes.inExpress = [
      Object.getPrototypeOf(req) === app.request,
      Object.getPrototypeOf(res) === app.response,
    ]
    res.json({ ip: req.ip, path: req.path, query: req.query })
  })
  const server = createServer(requestClassesOf(app), (req, res) => {
    // Before express takes them: already the app's request and response, and node's as well.
    prototypes.beforeExpress = [
      Object.getPrototypeOf(req) === app.request,
      Object.getPrototypeOf(res) === app.response,
      req instanceof IncomingMessage,
      res instanceof ServerResponse,
    ]
    app(req, res)
  })
  let url = ''
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('serve requests as express serves them, made with the prototypes express gives', async () => {
    const response = await fetch(`${url}/seen?x=1`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ ip: '127.0.0.1', path: '/seen', query: { x: '1' } })
    expect(prototypes).toEqual({ beforeExpress: [true, true, true, true], inExpress: [true, true] })
  })
})
