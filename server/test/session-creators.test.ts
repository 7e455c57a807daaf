import type { Session } from '@parley/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey, signUp } from './helpers/accounts.ts'
import { mountChatProbes } from './helpers/probe-routes.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/** The credentials of chat and voice session creation, on probe routes until those routes land. */
let server: TestServer
let owner: Session
let widget: string
let secret: string
beforeAll(async () => {
  server = await startTestServer({ extendApp: mountChatProbes })
  owner = await signUp(server)
  widget = (await createKey(server, owner.token, { type: 'widget', allowedDomains: ['example.com'] })).key
  secret = (await createKey(server, owner.token)).key
})
afterAll(async () => {
  await server.destroy()
})

const call = (path: string, headers: Record<string, string>) =>
  server.request(`/v1/chat/probe/${path}`, { method: 'POST', headers })

describe('chat session creation credentials', () => {
  it.each([
    ['a secret key in X-API-Key', () => ({ 'x-api-key': secret }), 'apiKey'],
    [
      'a widget key from an allowed origin',
      () => ({ 'x-api-key': widget, origin: 'https://example.com' }),
      'apiKey',
    ],
    [
      'a widget key from localhost',
      () => ({ 'x-api-key': widget, origin: 'http://localhost:5173' }),
      'apiKey',
    ],
    ['a studio session in X-Studio-Token', () => ({ 'x-studio-token': owner.token }), 'studio'],
  ])('accepts %s', async (_label, headers, kind) => {
    const response = await call('creator', headers())
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ kind, organizationId: owner.organization.id })
  })

  it('refuses a missing or unknown key with 401 invalid_api_key in the chat body shape', async () => {
    for (const headers of [{}, { 'x-api-key': 'nope' }] as Record<string, string>[]) {
      const response = await call('creator', headers)
      expect(response.status).toBe(401)
      expect(await response.json()).toEqual({ detail: expect.any(String), code: 'invalid_api_key' })
    }
  })

  it('refuses a widget key from an unlisted origin, and a malformed studio token', async () => {
    const unlisted = await call('creator', { 'x-api-key': widget, origin: 'https://evil-example.com' })
    expect(unlisted.status).toBe(403)
    expect(await unlisted.json()).toMatchObject({ code: 'origin_not_allowed' })
    expect((await call('creator', { 'x-studio-token': 'not-a-jwt' })).status).toBe(401)
  })
})

describe('voice session creation credentials', () => {
  it('takes secret keys, widget keys (allowed origins) and, for the studio, studio tokens', async () => {
    expect((await call('voice-creator', { 'x-api-key': secret })).status).toBe(200)
    expect(
      (await call('voice-creator', { 'x-api-key': widget, origin: 'https://a.example.com' })).status,
    ).toBe(200)
    const studio = await call('voice-creator', { 'x-studio-token': owner.token })
    expect(studio.status).toBe(200)
    expect(await studio.json()).toEqual({ kind: 'studio', organizationId: owner.organization.id })
    expect((await call('voice-creator', { 'x-studio-token': 'not-a-jwt' })).status).toBe(401)
  })
})
