import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import { createSecureServer } from 'node:http2'
import type { AddressInfo, Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'

/** One scripted completion: what the fake model streams for the next request. */
export type FakeReply = {
  /** Content deltas, one chunk each. */
  text?: string[]
  /** Tool calls; `args` are the argument fragments, sent as separate chunks. */
  toolCalls?: { name: string; args?: string[] }[]
  usage?: { input: number; output: number }
  /** Answer this HTTP status with an error body instead of a stream. */
  status?: number
  /** Cut the connection after the text chunks (an upstream failure mid-stream). */
  breakAfterText?: boolean
  /** Wait this long before each chunk. */
  delayMs?: number
  /** After the text chunks, keep the stream open until the client goes away. */
  hang?: boolean
  /** Wait for `until` before sending text chunk number `atChunk` (a test decides when the reply goes on). */
  hold?: { atChunk: number; until: Promise<unknown> }
}

export type CompletionRequest = {
  model: string
  messages: { role: string; content: unknown; tool_calls?: unknown[] }[]
  tools?: { function: { name: string } }[]
  stream_options?: unknown
  temperature?: number
  /** The completion cap as OpenAI's API names it (other providers: max_tokens). */
  max_completion_tokens?: number
  max_tokens?: number
}

const STANDARD_REPLY: FakeReply = { text: ['Hello', ' there', '!'], usage: { input: 10, output: 5 } }

/**
 * An OpenAI-compatible chat-completions endpoint on a loopback port: real SSE chunks in OpenAI's
 * format, replies scripted per test with `queue`; `requests` and `clientsGone` record what happened.
 * With `tls` it speaks HTTPS as the hosted providers do, HTTP/2 to a client that offers it (ALPN)
 * and HTTP/1.1 otherwise; `connections` counts the connections clients opened.
 */
export const startFakeLlm = async ({ tls }: { tls?: { key: string; cert: string } } = {}) => {
  const script: FakeReply[] = []
  const requests: CompletionRequest[] = []
  /** The headers of each completion request, in the same order (the key a client sent). */
  const requestHeaders: IncomingHttpHeaders[] = []
  /** When each completion request arrived (Date.now()), in the same order. */
  const requestTimes: number[] = []
  let clientsGone = 0
  let sequence = 0
  let fallback: FakeReply | ((request: CompletionRequest) => FakeReply) = STANDARD_REPLY

  const write = (res: ServerResponse, value: unknown) => res.write(`data: ${JSON.stringify(value)}\n\n`)
  /** Resolves once everything written so far has been handed to the socket. */
  const flushed = (res: ServerResponse) => new Promise<void>((resolve) => res.write('', () => resolve()))
  const chunk = (model: string, delta: unknown, finish: string | null = null) => ({
    id: `chatcmpl-${sequence}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  })

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    // LiveKit's OpenAI plugin lists the models first, to open the connection before the first turn.
    if (req.method === 'GET' && req.url?.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          object: 'list',
          data: [{ id: 'fake', object: 'model', created: 0, owned_by: 'parley' }],
        }),
      )
      return
    }
    const parts: Buffer[] = []
    req.on('data', (part: Buffer) => parts.push(part))
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as CompletionRequest
      requests.push(body)
      requestHeaders.push(req.headers)
      requestTimes.push(Date.now())
      sequence++
      const reply = script.shift() ?? (typeof fallback === 'function' ? fallback(body) : fallback)
      if (reply.status) {
        // Like the real providers, an error names the request for their support (x-request-id).
        res.writeHead(reply.status, { 'content-type': 'application/json', 'x-request-id': `req_${sequence}` })
        res.end(JSON.stringify({ error: { message: 'scripted failure', type: 'server_error' } }))
        return
      }
      let gone = false
      res.on('close', () => {
        if (!res.writableFinished) {
          gone = true
          clientsGone++
        }
      })
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      write(res, chunk(body.model, { role: 'assistant', content: '' }))
      for (const [index, text] of (reply.text ?? []).entries()) {
        if (reply.hold?.atChunk === index) await reply.hold.until
        if (reply.delayMs) await sleep(reply.delayMs)
        if (gone) return
        write(res, chunk(body.model, { content: text }))
      }
      if (reply.breakAfterText) {
        // Let the written chunks reach the client before the connection drops: flushed to the
        // socket, then a moment for the client to read them. The openai client drops events it
        // has received but not yet parsed when the stream errors, so the moment is generous: on a
        // loaded machine 50 ms lost one.
        await flushed(res)
        await sleep(250)
        res.destroy()
        return
      }
      if (reply.hang) return
      for (const [index, call] of (reply.toolCalls ?? []).entries()) {
        write(
          res,
          chunk(body.model, {
            tool_calls: [
              {
                index,
                id: `call_${sequence}_${index}`,
                type: 'function',
                function: { name: call.name, arguments: '' },
              },
            ],
          }),
        )
        for (const fragment of call.args ?? [])
          write(res, chunk(body.model, { tool_calls: [{ index, function: { arguments: fragment } }] }))
      }
      write(res, chunk(body.model, {}, reply.toolCalls?.length ? 'tool_calls' : 'stop'))
      const usage = reply.usage ?? { input: 0, output: 0 }
      write(res, {
        ...chunk(body.model, {}),
        choices: [],
        usage: {
          prompt_tokens: usage.input,
          completion_tokens: usage.output,
          total_tokens: usage.input + usage.output,
        },
      })
      res.end('data: [DONE]\n\n')
    })
  }
  // HTTP/2's compatibility request and response carry what the handler reads and writes.
  const server = tls
    ? createSecureServer({ ...tls, allowHTTP1: true }, handle as never)
    : createServer(handle)
  let connections = 0
  const sockets = new Set<Socket>()
  server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    connections++
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    /** What LLM_BASE_URL should be. */
    baseUrl: `${tls ? 'https' : 'http'}://127.0.0.1:${port}/v1`,
    /** Connections opened so far, and how many are open now. */
    connections: () => ({ opened: connections, open: sockets.size }),
    requests,
    requestHeaders,
    requestTimes,
    queue: (...replies: FakeReply[]) => void script.push(...replies),
    clientsGone: () => clientsGone,
    /**
     * What to stream when nothing is queued (e.g. `{hang: true}` for streams that stay open), or a
     * function choosing the reply from the request (a script keyed by the visitor's message).
     */
    setFallback: (reply: FakeReply | ((request: CompletionRequest) => FakeReply)) => {
      fallback = reply
    },
    reset: () => {
      script.length = 0
      requests.length = 0
      requestHeaders.length = 0
      requestTimes.length = 0
    },
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
export type FakeLlm = Awaited<ReturnType<typeof startFakeLlm>>
