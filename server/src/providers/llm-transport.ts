import { Readable } from 'node:stream'
import { Agent, request } from 'undici'

/** Kept-alive connections to the LLM endpoint, shared by every client. */
const dispatcher = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 60_000 })

const encoder = new TextEncoder()

const headersOf = (init: RequestInit | undefined) => {
  const headers: Record<string, string> = {}
  new Headers(init?.headers).forEach((value, name) => {
    headers[name] = value
  })
  return headers
}

/**
 * The `fetch` the openai client is given: undici's `request` under the WHATWG surface the client
 * reads (a Response with a web stream body). On a 2-core machine the global fetch took about a
 * millisecond longer to put a request on the wire, and that millisecond sits before every reply's
 * first token (server/.scratch figures in the chat issue's note; `npm run bench -- chat` (a)).
 * Anything but a plain request (a stream or form body) goes to the global fetch. No redirects are
 * followed: an LLM endpoint that redirects is misconfigured.
 */
export const llmFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
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
    dispatcher,
  })
  const headers = new Headers()
  for (const [name, value] of Object.entries(answer.headers))
    for (const each of Array.isArray(value) ? value : value === undefined ? [] : [value])
      headers.append(name, each)
  const hasBody = answer.statusCode !== 204 && answer.statusCode !== 304 && init?.method !== 'HEAD'
  // A body nobody will read still holds the connection until it is drained.
  if (!hasBody) await answer.body.dump()
  return new Response(hasBody ? (Readable.toWeb(answer.body) as ReadableStream<Uint8Array>) : null, {
    status: answer.statusCode,
    headers,
  })
}
