import { ApiError, session, signOut } from './api.ts'

/**
 * What the studio's followers of a server-sent event stream share (call events, batch progress):
 * the wait between reconnections, doubled each failure up to the server's heartbeat period; the
 * stream's refusal as api() would throw it; and whether trying again can help.
 */
export const FIRST_RETRY_MS = 500
export const LAST_RETRY_MS = 15_000

export const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => {
      clearTimeout(timer)
      resolve()
    })
  })

/** The API's refusal of the stream, in its words (the same shape api() throws). */
export const refusalOf = async (response: Response) => {
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>
  if (response.status === 401 && session.value) signOut()
  return new ApiError(
    String(body.detail ?? body.error ?? `The server answered ${response.status}`),
    response.status,
    body.code as string | undefined,
    {},
  )
}

/** Whether trying again can help: the network, a restart, a rate limit; not a refusal. */
export const isLasting = (error: unknown) =>
  error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 429
