import { Readable } from 'node:stream'
import type { TLSSocket } from 'node:tls'
import { Agent, buildConnector, Client, type Dispatcher, Pool, request } from 'undici'

/** Replies one HTTP/2 connection carries at most (a provider's SETTINGS may lower it). */
const STREAMS_PER_CONNECTION = 100

/**
 * Connections to LLM endpoints, shared by every client: HTTP/2 where the provider offers it in TLS
 * (ALPN; OpenAI, Groq, Gemini and Anthropic do), so one connection carries up to 100 concurrent
 * replies (undici opens another past that), and kept-alive HTTP/1.1 otherwise (a plain-HTTP vLLM or
 * Ollama needs a connection per concurrent reply). undici lets a connection carry more than one
 * request only with `pipelining` above 1, which on HTTP/1.1 would queue a reply behind another's
 * whole stream: each connection gets it once ALPN has said which protocol it speaks.
 * `tls` adds TLS options (a test's own certificate authority).
 */
export const createLlmDispatcher = (tls: buildConnector.BuildOptions = {}): Dispatcher => {
  const connector = buildConnector({ ...tls, allowH2: true })
  return new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 60_000,
    allowH2: true,
    maxConcurrentStreams: STREAMS_PER_CONNECTION,
    // A pool per origin, as undici's own; its connections set their pipelining from ALPN.
    factory: (origin, poolOptions) =>
      new Pool(origin, {
        ...poolOptions,
        factory: (url, options) => {
          const client: Client = new Client(url, {
            ...options,
            connect: (connectOptions, callback) =>
              connector(connectOptions, (...result) => {
                const [, socket] = result
                if (socket)
                  client.pipelining = (socket as TLSSocket).alpnProtocol === 'h2' ? STREAMS_PER_CONNECTION : 1
                callback(...result)
              }),
          })
          return client
        },
      }),
  })
}

const defaultDispatcher = createLlmDispatcher()

const encoder = new TextEncoder()

const headersOf = (init: RequestInit | undefined) => {
  const headers: Record<string, string> = {}
  new Headers(init?.headers).forEach((value, name) => {
    headers[name] = value
  })
  return headers
}

/** The Node stream under each successful response of `fetchThrough` (nodeBodyOf). */
const nodeBodies = new WeakMap<Response, Readable>()

/**
 * The body of a successful `fetchThrough` response: the Node stream undici gives, to be read (or
 * destroyed, which aborts its request) by the caller. Null for any other response.
 */
export const nodeBodyOf = (response: Response): Readable | null => nodeBodies.get(response) ?? null

/**
 * The `fetch` the openai client is given: undici's `request` under the WHATWG surface the client
 * reads. A successful response carries no web stream: its body is the Node stream undici gives
 * (nodeBodyOf), read by chat's own parser, since the client never reads a streamed reply itself
 * (asResponse). Every open reply kept a web stream, its reader and its pending read (about 4 KiB;
 * `npm run bench -- chat` (c)). A refusal's body is a web stream (Readable.toWeb): the client reads
 * it whole for its APIError. On a 2-core machine the global fetch took about a millisecond longer
 * to put a request on the wire, and that millisecond sits before every reply's first token
 * (server/.scratch figures in the chat issue's note; `npm run bench -- chat` (a)). Anything but a
 * plain request (a stream or form body) goes to the global fetch. No redirects are followed: an
 * LLM endpoint that redirects is misconfigured.
 */
export const llmFetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
  fetchThrough(defaultDispatcher, input, init)

/**
 * `llmFetch` over `dispatcher`. Requests are marked idempotent so HTTP/2 may multiplex them: undici
 * otherwise holds a POST back until the connection has no other request in flight, which would
 * open a connection per reply again. It retries nothing either way; the openai client's retries
 * are off (llm.ts).
 */
export const fetchThrough = async (
  dispatcher: Dispatcher,
  input: string | URL | Request,
  init?: RequestInit,
): Promise<Response> => {
  const isPlain =
    !(input instanceof Request) &&
    (init?.body === undefined || init.body === null || typeof init.body === 'string')
  if (!isPlain) return fetch(input, init)
  const answer = await request(input, {
    method: (init?.method ?? 'GET') as 'GET',
    headers: headersOf(init),
    // Encoded to a buffer of its own: a short string becomes a slice of a shared 8 KiB pool, and
    // the request keeps its body (and so the whole slab) until the reply ends.
    body: typeof init?.body === 'string' ? encoder.encode(init.body) : null,
    signal: init?.signal ?? undefined,
    idempotent: true,
    dispatcher,
  })
  const headers = new Headers()
  for (const [name, value] of Object.entries(answer.headers))
    for (const each of Array.isArray(value) ? value : value === undefined ? [] : [value])
      headers.append(name, each)
  const hasBody = answer.statusCode !== 204 && answer.statusCode !== 304 && init?.method !== 'HEAD'
  // A body nobody will read still holds the connection until it is drained.
  if (!hasBody) await answer.body.dump()
  if (hasBody && answer.statusCode >= 200 && answer.statusCode < 300) {
    const response = new Response(null, { status: answer.statusCode, headers })
    nodeBodies.set(response, answer.body)
    return response
  }
  return new Response(hasBody ? (Readable.toWeb(answer.body) as ReadableStream<Uint8Array>) : null, {
    status: answer.statusCode,
    headers,
  })
}
