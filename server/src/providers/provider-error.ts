import OpenAI from 'openai'

/** What went wrong at a provider, in the words the visitor and the operator each need. */
export type ProviderFailure = 'key_rejected' | 'unknown_model' | 'rate_limited' | 'unavailable' | 'failed'

const visitorText: Record<ProviderFailure, string> = {
  key_rejected: "The assistant's model provider refused its credentials; please tell the site's owner",
  unknown_model: "The assistant's model is not available at its provider; please tell the site's owner",
  rate_limited: "The assistant's model provider is busy right now; please try again in a moment",
  unavailable: "The assistant's model provider is unavailable right now; please try again later",
  failed: 'The assistant could not finish this reply; please try again',
}

const failureOf = (status: number | null): ProviderFailure => {
  if (status === 401 || status === 403) return 'key_rejected'
  if (status === 404) return 'unknown_model'
  if (status === 429) return 'rate_limited'
  if (status === null || status >= 500) return 'unavailable'
  return 'failed'
}

/**
 * A provider's refusal or outage. It carries the provider, the HTTP status and the provider's
 * request id for the operator's log line, and never the provider's own message nor the request:
 * a rejected key is echoed (partly) in some providers' messages.
 */
export class ProviderError extends Error {
  readonly provider: string
  readonly status: number | null
  readonly requestId: string | null
  readonly failure: ProviderFailure

  constructor({
    provider,
    status,
    requestId,
  }: { provider: string; status: number | null; requestId: string | null }) {
    const failure = failureOf(status)
    super(`provider ${provider} failed (${status === null ? 'no answer' : `HTTP ${status}`}): ${failure}`)
    this.name = 'ProviderError'
    this.provider = provider
    this.status = status
    this.requestId = requestId
    this.failure = failure
  }

  /** Safe to show the visitor. */
  get visitorMessage() {
    return visitorText[this.failure]
  }

  /** The fields of the operator's log line. */
  get logFields() {
    return {
      provider: this.provider,
      status: this.status,
      requestId: this.requestId,
      failure: this.failure,
    }
  }

  /** An error of the openai client as a ProviderError; an abort (ours) is passed through as it is. */
  static from(provider: string, error: unknown, signal: AbortSignal): unknown {
    if (signal.aborted || error instanceof ProviderError) return error
    if (error instanceof OpenAI.APIError) {
      const requestId =
        error.requestID ?? error.headers?.get('x-request-id') ?? error.headers?.get('request-id') ?? null
      return new ProviderError({ provider, status: error.status ?? null, requestId })
    }
    // A dropped connection or a malformed stream: the provider did not answer as it should.
    return new ProviderError({ provider, status: null, requestId: null })
  }
}
