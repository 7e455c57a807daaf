import {
  DEFAULT_MAX_RESPONSE_BYTES,
  OutboundError,
  type OutboundMethod,
  outboundFetch,
  type ResolveHost,
} from '../outbound/outbound.ts'
import { checkArguments } from './parameters.ts'

export { validateFunctionParameters } from './parameters.ts'

/** The spec's limit: a customer's endpoint answers within 10 seconds. */
export const FUNCTION_TIMEOUT_MS = 10_000
export const FUNCTION_MAX_RESPONSE_BYTES = DEFAULT_MAX_RESPONSE_BYTES

/** The parts of a custom function the call needs. */
export type InvokableFunction = {
  endpoint: string
  method: OutboundMethod
  headers: Record<string, string>
  /** JSON Schema `{type: 'object', properties, required?}`, checked at save time. */
  parameters: Record<string, unknown>
}

export type InvokeFunctionInput = {
  fn: InvokableFunction
  /** The arguments the model extracted, by parameter name. */
  args: unknown
  /** OUTBOUND_ALLOW_HOSTS from config. */
  allowHosts?: readonly string[]
  timeoutMs?: number
  maxBytes?: number
  /** For tests only: stands in for DNS. */
  resolveHost?: ResolveHost
}

/** What the model is told: the endpoint's JSON, or an error it can explain to the user. */
export type InvokeResult =
  | { ok: true; status: number; json: unknown }
  | { ok: false; status?: number; error: string }

// Ours to set: the body is always JSON, and the transport owns Host and Content-Length.
const protectedHeaders = new Set(['content-type', 'host', 'content-length'])

/** GET carries arguments in the query: strings as they are, anything else JSON-encoded per value. */
const toQueryValue = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value))

const buildRequest = ({ fn, args }: { fn: InvokableFunction; args: Record<string, unknown> }) => {
  const headers: Record<string, string> = { accept: 'application/json' }
  for (const [name, value] of Object.entries(fn.headers ?? {})) {
    if (typeof value === 'string' && !protectedHeaders.has(name.toLowerCase()))
      headers[name.toLowerCase()] = value
  }
  headers['content-type'] = 'application/json'
  if (fn.method !== 'GET') {
    return { url: fn.endpoint, method: fn.method, headers, body: JSON.stringify(args) }
  }
  const url = new URL(fn.endpoint)
  for (const [name, value] of Object.entries(args)) {
    if (value !== undefined) url.searchParams.set(name, toQueryValue(value))
  }
  return { url: url.href, method: fn.method, headers, body: undefined }
}

const formatBytes = (bytes: number) =>
  bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`

const describeOutboundError = ({
  error,
  timeoutMs,
  maxBytes,
}: {
  error: OutboundError
  timeoutMs: number
  maxBytes: number
}) => {
  switch (error.reason) {
    case 'timeout':
      return `The function endpoint did not answer within ${timeoutMs / 1000} s`
    case 'too_large':
      return `The function endpoint's response is too large (over ${formatBytes(maxBytes)})`
    case 'forbidden_address':
      return 'The function endpoint is not allowed: it points to a private or reserved address'
    case 'not_https':
      return 'The function endpoint is not allowed: it must be an https URL'
    case 'invalid_url':
      return 'The function endpoint URL is invalid'
    case 'redirect':
      return 'The function endpoint answered with a redirect, which is not followed'
    case 'network':
      return `The function call failed: ${error.message}`
  }
}

const describeBody = (bodyText: string) => {
  const text = bodyText.trim().slice(0, 200)
  return text ? `: ${text}` : ''
}

/** The endpoint's answer as it came, when one came (a test call shows it to the owner). */
export type FunctionResponse = { status: number; bodyText: string }

/**
 * Calls a customer's custom function. Never throws: invalid arguments (no request made), a
 * refused or unreachable endpoint, a time-out, an oversized, non-2xx or non-JSON answer all come
 * back as `{ ok: false, error }` in `result`; `response` is the answer itself when one arrived.
 * Headers are never logged; they may carry secrets.
 */
export const callFunction = async ({
  fn,
  args,
  allowHosts = [],
  timeoutMs = FUNCTION_TIMEOUT_MS,
  maxBytes = FUNCTION_MAX_RESPONSE_BYTES,
  resolveHost,
}: InvokeFunctionInput): Promise<{ result: InvokeResult; response?: FunctionResponse }> => {
  try {
    const checked = checkArguments({ schema: fn.parameters, args })
    if (!checked.ok) return { result: { ok: false, error: checked.error } }

    const request = buildRequest({ fn, args: checked.args })
    const answer = await outboundFetch({ ...request, timeoutMs, maxBytes, allowHosts, resolveHost })
    const response = { status: answer.status, bodyText: answer.bodyText }
    const { status, bodyText } = response
    if (status < 200 || status > 299) {
      const error = `The function endpoint answered HTTP ${status}${describeBody(bodyText)}`
      return { result: { ok: false, status, error }, response }
    }
    try {
      return { result: { ok: true, status, json: JSON.parse(bodyText) as unknown }, response }
    } catch {
      return {
        result: { ok: false, status, error: 'The function endpoint did not answer with JSON' },
        response,
      }
    }
  } catch (error) {
    if (error instanceof OutboundError) {
      return { result: { ok: false, error: describeOutboundError({ error, timeoutMs, maxBytes }) } }
    }
    // new URL() of a malformed stored endpoint, or a header value undici refuses.
    return {
      result: { ok: false, error: 'The function could not be called: its endpoint or headers are invalid' },
    }
  }
}

/** Calls a customer's custom function for the model (chat and voice): what the model is told. */
export const invokeFunction = async (input: InvokeFunctionInput): Promise<InvokeResult> =>
  (await callFunction(input)).result
