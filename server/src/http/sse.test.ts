import type { AddressInfo } from 'node:net'
import express from 'express'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { openEventStream } from './sse.ts'

let server: ReturnType<ReturnType<typeof express>['listen']>
let url = ''

beforeAll(async () => {
  const app = express()
  app.get('/stream', (_req, res) => {
    const stream = openEventStream(res, { heartbeatMs: 20 })
    stream.send('first', { n: 1 })
    setTimeout(() => {
      stream.send('last', { n: 2 })
      stream.close()
    }, 120)
  })
  server = app.listen(0)
  await new Promise((resolve) => server.once('listening', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stream`
})
afterAll(() => new Promise((resolve) => server.close(resolve)))

it('frames numbered events and sends heartbeat comments while the stream is open', async () => {
  const response = await fetch(url)
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
  expect(response.headers.get('x-accel-buffering')).toBe('no')
  const body = await response.text()
  expect(body.startsWith('id: 1\nevent: first\ndata: {"n":1}\n\n')).toBe(true)
  expect(body.endsWith('id: 2\nevent: last\ndata: {"n":2}\n\n')).toBe(true)
  expect(body).toContain(': heartbeat\n\n')
})
