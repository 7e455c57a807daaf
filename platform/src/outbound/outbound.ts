import { Agent, buildConnector, request } from 'undici'
import {
  createGuardedLookup,
  ForbiddenAddressError,
  isIpLiteral,
  isPublicAddress,
  type ResolveHost,
  resolvePublicAddresses,
  resolveWithSystem,
} from './outbound-address.ts'
import { OutboundError, type OutboundFailure, toOutboundError, tooLarge } from './outbound-error.ts'

export type { ResolvedAddress, ResolveHost } from './outbound-address.ts'
export { OutboundError, type OutboundFailure } from './outbound-error.ts'

/**
 * The one way the service calls customer URLs (custom functions, webhooks). Only https to public
 * addresses, checked on the address the socket actually connects to; hosts in OUTBOUND_ALLOW_HOSTS
 * (tests, development) may use http and any address. Redirects are refused, not followed: a
 * customer endpoint should answer where it is configured, and following would carry the custom
 * (often secret) headers to another origin and need every hop re-checked.
 */

export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024

export type OutboundMethod = 'GET' | 'POST' | 'PUT' | 'PATCH'

type UrlShapeCheck =
  | { ok: true; url: URL }
  | {
      ok: false
      reason: Extract<OutboundFailure, 'invalid_url' | 'not_https' | 'forbidden_address'>
      message: string
    }

export type OutboundUrlCheck = UrlShapeCheck | { ok: false; reason: 'unresolvable'; message: string }

type AllowList = { allowHosts?: readonly string[] }

/** Allow-list entries are lowercase `host` or `host:port` (IPv6 in brackets), as config parses them. */
const isAllowedHost = ({ url, allowHosts = [] }: AllowList & { url: URL }) => {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80')
  const host = url.hostname.toLowerCase()
  return allowHosts.includes(host) || allowHosts.includes(`${host}:${port}`)
}

/** The checks that need no DNS: scheme, credentials, IP literals. */
const checkUrlShape = ({ url: raw, allowHosts }: AllowList & { url: string | URL }): UrlShapeCheck => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return { ok: false, reason: 'invalid_url', message: 'is not a valid URL' }
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, reason: 'not_https', message: 'must be an https URL' }
  }
  if (url.username || url.password) {
    return { ok: false, reason: 'invalid_url', message: 'must not embed credentials; use custom headers' }
  }
  if (isAllowedHost({ url, allowHosts })) return { ok: true, url }
  if (url.protocol !== 'https:') return { ok: false, reason: 'not_https', message: 'must be an https URL' }
  if (isIpLiteral(url.hostname) && !isPublicAddress(url.hostname)) {
    return {
      ok: false,
      reason: 'forbidden_address',
      message: 'must not point to a private or reserved address',
    }
  }
  return { ok: true, url }
}

/**
 * The save-time check: the URL's shape plus one DNS resolution, so a name that already resolves to
 * a private address is refused early. outboundFetch checks again when it connects.
 */
export const validateOutboundUrl = async (
  url: string,
  { allowHosts = [], resolveHost = resolveWithSystem }: AllowList & { resolveHost?: ResolveHost } = {},
): Promise<OutboundUrlCheck> => {
  const shape = checkUrlShape({ url, allowHosts })
  if (!shape.ok || isAllowedHost({ url: shape.url, allowHosts }) || isIpLiteral(shape.url.hostname)) {
    return shape
  }
  try {
    await resolvePublicAddresses({ hostname: shape.url.hostname, resolveHost })
    return shape
  } catch (error) {
    if (error instanceof ForbiddenAddressError) {
      return {
        ok: false,
        reason: 'forbidden_address',
        message: 'must not resolve to a private or reserved address',
      }
    }
    return { ok: false, reason: 'unresolvable', message: 'host name does not resolve' }
  }
}

export type OutboundRequest = AllowList & {
  url: string
  method?: OutboundMethod
  headers?: Record<string, string>
  body?: string
  timeoutMs: number
  maxBytes?: number
  resolveHost?: ResolveHost
  /**
   * `refuse` (custom functions, webhooks): a redirect is an error. `return`: the 3xx comes back
   * unread, for a caller that checks each hop itself (followOutboundRedirects).
   */
  redirects?: 'refuse' | 'return'
}

export type OutboundResponse = {
  status: number
  headers: Record<string, string>
  bodyText: string
  /** The same body as bytes (documents fetched for knowledge may be binary). */
  body: Buffer
}

// undici refuses some of these outright and computes the others itself; a caller never sets them.
const reservedHeaders = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
])

const redirectStatuses = new Set([301, 302, 303, 307, 308])

/** Calls a customer URL under the rules above; throws OutboundError (never logs headers or body). */
export const outboundFetch = async ({
  url,
  method = 'GET',
  headers = {},
  body,
  timeoutMs,
  maxBytes = DEFAULT_MAX_RESPONSE_BYTES,
  allowHosts = [],
  resolveHost = resolveWithSystem,
  redirects = 'refuse',
}: OutboundRequest): Promise<OutboundResponse> => {
  const shape = checkUrlShape({ url, allowHosts })
  if (!shape.ok) throw new OutboundError({ reason: shape.reason, message: `URL ${shape.message}` })
  const isAllowed = isAllowedHost({ url: shape.url, allowHosts })

  // One dispatcher per call: its lookup is bound to this call's allow decision, and closing it
  // afterwards leaves no pooled socket to a customer host behind.
  const connectSocket = buildConnector({
    lookup: createGuardedLookup({ resolveHost, isAllowed }),
    timeout: timeoutMs,
  })
  const dispatcher = new Agent({
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: (options, callback) => {
      // net.connect skips `lookup` for IP literals, so they are judged here, per connection.
      if (!isAllowed && isIpLiteral(options.hostname) && !isPublicAddress(options.hostname)) {
        return callback(new ForbiddenAddressError(`${options.hostname} is not a public address`), null)
      }
      connectSocket(options, callback)
    },
  })
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), timeoutMs)

  try {
    const response = await request(shape.url, {
      method,
      headers: Object.fromEntries(
        Object.entries(headers).filter(([name]) => !reservedHeaders.has(name.toLowerCase())),
      ),
      body,
      signal: controller.signal,
      dispatcher,
    })
    if (redirectStatuses.has(response.statusCode) && redirects === 'return') {
      discard(response.body)
      return {
        status: response.statusCode,
        headers: flattenHeaders(response.headers),
        bodyText: '',
        body: Buffer.alloc(0),
      }
    }
    if (redirectStatuses.has(response.statusCode)) {
      discard(response.body)
      throw new OutboundError({
        reason: 'redirect',
        message: `endpoint answered with a redirect (HTTP ${response.statusCode}); configure the final URL`,
      })
    }
    if (Number(response.headers['content-length']) > maxBytes) {
      discard(response.body)
      throw tooLarge(maxBytes)
    }
    const chunks: Buffer[] = []
    let received = 0
    for await (const chunk of response.body) {
      received += chunk.length
      // Leaving the loop destroys the stream, so nothing past the cap is read.
      if (received > maxBytes) throw tooLarge(maxBytes)
      chunks.push(chunk)
    }
    const bytes = Buffer.concat(chunks)
    return {
      status: response.statusCode,
      headers: flattenHeaders(response.headers),
      bodyText: bytes.toString('utf8'),
      body: bytes,
    }
  } catch (error) {
    throw toOutboundError({ error, timeoutMs, isTimedOut: controller.signal.aborted })
  } finally {
    clearTimeout(timer)
    await dispatcher.destroy().catch(() => {})
  }
}

// Destroying an unread undici body emits an AbortError; nobody is waiting for it any more.
const discard = (body: NodeJS.ReadableStream & { destroy: () => void }) => {
  body.on('error', () => {})
  body.destroy()
}

const flattenHeaders = (headers: Record<string, string | string[] | undefined>) =>
  Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]) =>
      value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value]],
    ),
  )

export const MAX_REDIRECT_HOPS = 5

/**
 * Follows redirects one hop at a time, each hop through outboundFetch, so every address it
 * reaches is checked as the first was (https, public, at connect). `isHopAllowed` may narrow
 * further (a site crawl stays on its host). GET only: no body or custom headers cross origins.
 */
export const followOutboundRedirects = async ({
  url,
  isHopAllowed = () => true,
  ...request
}: Omit<OutboundRequest, 'method' | 'body' | 'redirects'> & {
  isHopAllowed?: (url: URL) => boolean
}): Promise<OutboundResponse & { url: string }> => {
  let current = url
  for (let hop = 0; hop <= MAX_REDIRECT_HOPS; hop += 1) {
    const response = await outboundFetch({ ...request, url: current, redirects: 'return' })
    if (!redirectStatuses.has(response.status)) return { ...response, url: current }
    const location = response.headers.location
    if (!location) throw new OutboundError({ reason: 'redirect', message: 'redirect without a Location' })
    const next = new URL(location, current)
    if (!isHopAllowed(next)) {
      throw new OutboundError({ reason: 'redirect', message: `redirected off the site to ${next.origin}` })
    }
    current = next.toString()
  }
  throw new OutboundError({ reason: 'redirect', message: `more than ${MAX_REDIRECT_HOPS} redirects` })
}
