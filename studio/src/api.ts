import type { Session } from '@parley/shared'
import { signal } from '@preact/signals'

const STORAGE_KEY = 'parley.studio.session'

const stored = (): Session | null => {
  try {
    const raw = localStorage.getItem(STORAGE_KEY)
    const session = raw ? (JSON.parse(raw) as Session) : null
    return session && new Date(session.expiresAt) > new Date() ? session : null
  } catch {
    return null
  }
}

/** The signed-in session (a studio JWT and who it names), kept across reloads until it expires. */
export const session = signal<Session | null>(stored())

export const signIn = (next: Session) => {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(next))
  session.value = next
}

export const signOut = () => {
  localStorage.removeItem(STORAGE_KEY)
  session.value = null
}

/** An error the API answered, in its own words, with the field it names when it names one. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | undefined,
    readonly fields: Record<string, string>,
  ) {
    super(message)
  }
}

type Issue = { field: string; message: string }

/**
 * Calls the public API with the session's token (the /api studio routes and /v1 alike), with a
 * JSON body or a form (a file upload). Every error area's body ({error}, {success:false,error},
 * {detail}) becomes one ApiError; a 401 signs out, since the session is over.
 */
export const api = async <T>(
  path: string,
  init: { method?: string; json?: unknown; form?: FormData } = {},
): Promise<T> => {
  const response = await fetch(path, {
    method: init.method ?? 'GET',
    headers: {
      ...(session.value ? { authorization: `Bearer ${session.value.token}` } : {}),
      ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    // multipart/form-data: the browser writes the content-type with its boundary.
    ...(init.form ? { body: init.form } : {}),
  })
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>
  if (!response.ok) {
    if (response.status === 401 && session.value && !path.startsWith('/api/auth/')) signOut()
    const issues = (body.issues as Issue[] | undefined) ?? []
    throw new ApiError(
      String(body.error ?? body.detail ?? `The server answered ${response.status}`),
      response.status,
      body.code as string | undefined,
      Object.fromEntries(issues.map((issue) => [issue.field, issue.message])),
    )
  }
  return body as T
}
