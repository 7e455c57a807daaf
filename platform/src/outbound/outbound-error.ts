import { ForbiddenAddressError } from './outbound-address.ts'

export type OutboundFailure =
  | 'invalid_url'
  | 'not_https'
  | 'forbidden_address'
  | 'timeout'
  | 'too_large'
  | 'network'
  | 'redirect'

export class OutboundError extends Error {
  override name = 'OutboundError'
  readonly reason: OutboundFailure

  constructor({ reason, message, cause }: { reason: OutboundFailure; message: string; cause?: unknown }) {
    super(message, { cause })
    this.reason = reason
  }
}

export const tooLarge = (maxBytes: number) =>
  new OutboundError({ reason: 'too_large', message: `response too large (over ${maxBytes} bytes)` })

const timeoutCodes = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT'])

/** Names what went wrong in terms a caller can act on; undici and socket errors stay as `cause`. */
export const toOutboundError = ({
  error,
  timeoutMs,
  isTimedOut,
}: {
  error: unknown
  timeoutMs: number
  isTimedOut: boolean
}): OutboundError => {
  if (error instanceof OutboundError) return error
  const chain = causeChain(error)
  if (chain.some((link) => link instanceof ForbiddenAddressError)) {
    return new OutboundError({
      reason: 'forbidden_address',
      message: 'host resolves to a private or reserved address',
      cause: error,
    })
  }
  if (isTimedOut || chain.some((link) => timeoutCodes.has(String((link as { code?: unknown }).code)))) {
    return new OutboundError({
      reason: 'timeout',
      message: `no complete answer within ${timeoutMs} ms`,
      cause: error,
    })
  }
  if (chain.some((link) => (link as { code?: unknown }).code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE')) {
    return new OutboundError({ reason: 'too_large', message: 'response too large', cause: error })
  }
  const code = chain
    .map((link) => (link as { code?: unknown }).code)
    .find((value) => typeof value === 'string')
  return new OutboundError({
    reason: 'network',
    message: `could not reach the endpoint (${code ?? 'error'})`,
    cause: error,
  })
}

const causeChain = (error: unknown): unknown[] => {
  const chain: unknown[] = []
  for (let link = error; link instanceof Error && chain.length < 5; link = link.cause) chain.push(link)
  return chain
}
