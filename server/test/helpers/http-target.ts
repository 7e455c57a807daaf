import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type ReceivedRequest = { method: string; url: string; headers: IncomingHttpHeaders; body: string }

export type HttpTarget = {
  /** `http://127.0.0.1:<port>` */
  origin: string
  /** `127.0.0.1:<port>`, the allow-list entry that lets outbound calls reach this server. */
  hostAndPort: string
  port: number
  received: ReceivedRequest[]
  close: () => Promise<void>
}

/**
 * A real HTTP server on a free loopback port standing in for a customer endpoint. The handler
 * gets the request with its body already read; one that never answers simulates a hung endpoint.
 */
export const startHttpTarget = async (
  respond: (request: ReceivedRequest, response: ServerResponse) => void,
): Promise<HttpTarget> => {
  const received: ReceivedRequest[] = []
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = []
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
    incoming.on('end', () => {
      const request = {
        method: incoming.method ?? '',
        url: incoming.url ?? '',
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      }
      received.push(request)
      respond(request, response)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    hostAndPort: `127.0.0.1:${port}`,
    port,
    received,
    close: async () => {
      // Hung test endpoints keep sockets open; close them so the server can stop.
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

export const respondJson = (response: ServerResponse, status: number, value: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify(value))
}

/** A port nothing listens on: bound, then released. */
export const findClosedPort = async () => {
  const target = await startHttpTarget(() => {})
  await target.close()
  return target.port
}
