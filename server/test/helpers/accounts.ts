import { randomBytes } from 'node:crypto'
import type { Session } from '@parley/shared'
import type { TestServer } from './test-server.ts'

export const uniqueEmail = (label = 'user') => `${label}-${randomBytes(4).toString('hex')}@example.com`

export const PASSWORD = 'correct horse battery staple'

/** Signs up a fresh owner with their own organization and returns the session. */
export const signUp = async (
  server: TestServer,
  overrides: Partial<{ email: string; name: string; organizationName: string }> = {},
) => {
  const response = await server.request('/api/auth/signup', {
    method: 'POST',
    json: {
      organizationName: 'Acme Inc',
      name: 'Ada Owner',
      email: uniqueEmail(),
      password: PASSWORD,
      ...overrides,
    },
  })
  if (response.status !== 201) throw new Error(`signup failed: ${response.status} ${await response.text()}`)
  return (await response.json()) as Session
}

export const logIn = async (server: TestServer, email: string, password = PASSWORD) => {
  const response = await server.request('/api/auth/login', { method: 'POST', json: { email, password } })
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${await response.text()}`)
  return (await response.json()) as Session
}

/** Accepts every invitation waiting for the session's account; answers the session after the last. */
export const acceptInvitations = async (server: TestServer, token: string) => {
  const listed = await server.request('/api/invitations', { token })
  if (listed.status !== 200) throw new Error(`invitations: ${listed.status} ${await listed.text()}`)
  const { invitations } = (await listed.json()) as { invitations: { id: string }[] }
  let session: Session | null = null
  for (const invitation of invitations) {
    const accepted = await server.request(`/api/invitations/${invitation.id}/accept`, {
      method: 'POST',
      token,
    })
    if (accepted.status !== 200) throw new Error(`accept: ${accepted.status} ${await accepted.text()}`)
    session = (await accepted.json()) as Session
  }
  return session
}

export type CreatedKey = { id: string; key: string; prefix: string; status: string; allowedDomains: string[] }

/** Creates an API key as the session's user (an owner) and returns the create response. */
export const createKey = async (
  server: TestServer,
  token: string,
  body: { name?: string; type?: 'secret' | 'widget'; allowedDomains?: string[] | string } = {},
) => {
  const response = await server.request('/api/api-keys', {
    method: 'POST',
    token,
    json: { name: 'Test key', type: 'secret', ...body },
  })
  if (response.status !== 201)
    throw new Error(`key creation failed: ${response.status} ${await response.text()}`)
  return (await response.json()) as CreatedKey
}
