import { randomBytes } from 'node:crypto'
import type { Session } from '@parley/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey, PASSWORD, uniqueEmail } from './helpers/accounts.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

// Each test claims its own client address through X-Forwarded-For (the loopback proxy is
// trusted), so the per-address budgets of one test do not spend another's. With TEST_REDIS_URL the
// budgets outlive the run (an hour for sign-ups), so each run takes addresses of its own too.
let server: TestServer
const run = randomBytes(2)
let nextAddress = 1
const freshAddress = () => `10.${run[0]}.${run[1]}.${nextAddress++}`

beforeAll(async () => {
  server = await startTestServer({
    env: {
      TRUST_PROXY: 'loopback',
      SIGNIN_ATTEMPTS_PER_ACCOUNT: '10',
      SIGNIN_ATTEMPTS_PER_ADDRESS: '15',
      SIGNUPS_PER_ADDRESS: '3',
      KEY_FAILURES_PER_ADDRESS: '30',
    },
  })
})
afterAll(async () => {
  await server.destroy()
})

const logIn = (email: string, password: string, address: string) =>
  server.request('/api/auth/login', {
    method: 'POST',
    json: { email, password },
    headers: { 'x-forwarded-for': address, 'x-forwarded-proto': 'https' },
  })

const signUpFrom = (address: string) =>
  server.request('/api/auth/signup', {
    method: 'POST',
    json: { organizationName: 'Farm', name: 'Farmer', email: uniqueEmail('farm'), password: PASSWORD },
    headers: { 'x-forwarded-for': address, 'x-forwarded-proto': 'https' },
  })

const expectLimited = async (response: Response, { limit }: { limit: number }) => {
  expect(response.status).toBe(429)
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
  expect(response.headers.get('x-ratelimit-limit')).toBe(String(limit))
  expect(response.headers.get('x-ratelimit-remaining')).toBe('0')
  expect(response.headers.get('ratelimit-policy')).toMatch(new RegExp(`^"[\\w-]+";q=${limit};w=\\d+$`))
  return response.json()
}

/** A fresh owner, signed up from an address of its own (the loopback's budget is this file's 3). */
const signUpOwner = async () => {
  const response = await signUpFrom(freshAddress())
  expect(response.status).toBe(201)
  return (await response.json()) as Session
}

describe('sign-in', () => {
  it('refuses the 11th attempt on an account after 10 wrong passwords, even with the right one', async () => {
    const owner = await signUpOwner()
    const email = owner.user.email
    for (let i = 0; i < 10; i++) {
      // Spread over addresses: the per-account budget is what stops this.
      const response = await logIn(email, `wrong-${i}`, freshAddress())
      expect(response.status).toBe(401)
    }
    const body = await expectLimited(await logIn(email.toUpperCase(), PASSWORD, freshAddress()), {
      limit: 10,
    })
    expect(body).toEqual({ error: expect.stringMatching(/too many/i), code: 'rate_limited' })
  })

  it('gives a right password its points back, so a user who signs in often is never locked out', async () => {
    const owner = await signUpOwner()
    const address = freshAddress()
    for (let i = 0; i < 12; i++) expect((await logIn(owner.user.email, PASSWORD, address)).status).toBe(200)
  })

  it('lets a user who signed in from an address in after a guesser there spent its budget', async () => {
    const owner = await signUpOwner()
    const office = freshAddress()
    expect((await logIn(owner.user.email, PASSWORD, office)).status).toBe(200)
    for (let i = 0; i < 15; i++)
      expect((await logIn(uniqueEmail('nobody'), 'guess', office)).status).toBe(401)
    await expectLimited(await logIn(uniqueEmail('nobody'), 'guess', office), { limit: 15 })
    // The office's user: the address budget is not theirs to pay; their account's budget still is.
    expect((await logIn(owner.user.email, PASSWORD, office)).status).toBe(200)
    expect((await logIn(owner.user.email, 'wrong', office)).status).toBe(401)
    // An account never signed in from there waits the window out like any guess.
    const newcomer = await signUpOwner()
    await expectLimited(await logIn(newcomer.user.email, PASSWORD, office), { limit: 15 })
  })

  it('limits attempts per address across accounts', async () => {
    const address = freshAddress()
    for (let i = 0; i < 15; i++) {
      expect((await logIn(uniqueEmail('nobody'), 'guess', address)).status).toBe(401)
    }
    await expectLimited(await logIn(uniqueEmail('nobody'), 'guess', address), { limit: 15 })
    // Another address is not affected.
    expect((await logIn(uniqueEmail('nobody'), 'guess', freshAddress())).status).toBe(401)
  })
})

describe('sign-up', () => {
  it('allows SIGNUPS_PER_ADDRESS sign-ups per address, then 429 with no account or credits created', async () => {
    const address = freshAddress()
    for (let i = 0; i < 3; i++) expect((await signUpFrom(address)).status).toBe(201)
    const users = async () =>
      Number(
        (
          await server.ctx.db
            .selectFrom('users')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
    const before = await users()
    await expectLimited(await signUpFrom(address), { limit: 3 })
    expect(await users()).toBe(before)
    expect((await signUpFrom(freshAddress())).status).toBe(201)
  })
})

describe('API keys', () => {
  it('throttles an address after KEY_FAILURES_PER_ADDRESS invalid keys, on v1 and on session creation', async () => {
    const address = freshAddress()
    const tryKey = (path: string, method = 'GET') =>
      server.request(path, {
        method,
        headers: {
          'x-api-key': `pk_live_${'x'.repeat(40)}`,
          'x-forwarded-for': address,
          'x-forwarded-proto': 'https',
        },
        ...(method === 'POST' ? { json: { agent_id: 'nope' } } : {}),
      })
    for (let i = 0; i < 30; i++) expect((await tryKey('/v1/organization')).status).toBe(401)
    expect(await expectLimited(await tryKey('/v1/organization'), { limit: 30 })).toMatchObject({
      success: false,
      code: 'rate_limited',
    })
    expect((await tryKey('/v1/chat/sessions', 'POST')).status).toBe(429)
    // A different address still gets its 401.
    const other = await server.request('/v1/organization', {
      headers: {
        'x-api-key': `pk_live_${'x'.repeat(40)}`,
        'x-forwarded-for': freshAddress(),
        'x-forwarded-proto': 'https',
      },
    })
    expect(other.status).toBe(401)
  })

  it('lets the office behind a guesser’s NAT keep using its key, and tells the guesser nothing more', async () => {
    const owner = await signUpOwner()
    const { key: officeKey, id: officeKeyId } = await createKey(server, owner.token)
    const unusedKey = (await createKey(server, owner.token)).key
    const office = freshAddress()
    const call = (key: string, address: string) =>
      server.request('/v1/organization', {
        headers: { 'x-api-key': key, 'x-forwarded-for': address, 'x-forwarded-proto': 'https' },
      })
    const guess = () => call(`pk_live_${randomBytes(30).toString('base64url')}`, office)
    // The office works with its key all day.
    expect((await call(officeKey, office)).status).toBe(200)
    for (let i = 0; i < 30; i++) expect((await guess()).status).toBe(401)
    await expectLimited(await guess(), { limit: 30 })
    // The office's key still passes, again and again, and spends nothing.
    for (let i = 0; i < 3; i++) expect((await call(officeKey, office)).status).toBe(200)
    // Every other guess is refused, valid or not: a key never used from there cannot be told
    // from a wrong one. The same key from another address works.
    await expectLimited(await guess(), { limit: 30 })
    await expectLimited(await call(unusedKey, office), { limit: 30 })
    expect((await call(unusedKey, freshAddress())).status).toBe(200)
    // A known key that is revoked is refused like a guess.
    const revoked = await server.request(`/api/api-keys/${officeKeyId}/revoke`, {
      method: 'POST',
      token: owner.token,
    })
    expect(revoked.status).toBe(200)
    await expectLimited(await call(officeKey, office), { limit: 30 })
  })
})
