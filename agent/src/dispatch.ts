import { type DispatchMetadata, ZDispatchMetadata } from '@parley/shared'
import { z } from 'zod'

export type DispatchReading =
  | { ok: true; metadata: DispatchMetadata }
  | { ok: false; problem: string; callId: string | null }

const ZCallIdOnly = z.object({ callId: z.string().min(1) })

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * Reads a job's dispatch metadata. A refusal names what is wrong by path only (values may be a
 * person's details) and keeps the call id when one can be read, so the worker can still end that
 * call rather than leave its caller waiting in silence.
 */
export const readDispatch = (text: string): DispatchReading => {
  const json = parseJson(text)
  const parsed = ZDispatchMetadata.safeParse(json)
  if (parsed.success) return { ok: true, metadata: parsed.data }
  const callId = ZCallIdOnly.safeParse(json)
  const problem =
    json === undefined
      ? 'not JSON'
      : parsed.error.issues
          .slice(0, 5)
          .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.code}`)
          .join('; ')
  return { ok: false, problem, callId: callId.success ? callId.data.callId : null }
}
