import { afterEach, describe, expect, it } from 'vitest'
import {
  findClosedPort,
  type HttpTarget,
  respondJson,
  startHttpTarget,
} from '../../../server/test/helpers/http-target.ts'
import { privateIpv6, publicIpv6 } from '../../../server/test/helpers/special-addresses.ts'
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  OutboundError,
  type OutboundFailure,
  type OutboundRequest,
  outboundFetch,
  type ResolveHost,
  validateOutboundUrl,
} from './outbound.ts'
import { createGuardedLookup, ForbiddenAddressError, isPublicAddress } from './outbound-address.ts'

const targets: HttpTarget[] = []
const startTarget = async (...args: Parameters<typeof startHttpTarget>) => {
  const target = await startHttpTarget(...args)
  targets.push(target)
  return target
}
afterEach(async () => {
  await Promise.all(targets.splice(0).map((target) => target.close()))
})

const failureOf = async (request: OutboundRequest): Promise<OutboundFailure> => {
  try {
    await outboundFetch(request)
  } catch (error) {
    expect(error).toBeInstanceOf(OutboundError)
    return (error as OutboundError).reason
  }
  throw new Error(`expected ${request.url} to fail`)
}

/** Answers `addresses` for every name, as a DNS server under the attacker's control would. */
const resolveTo =
  (...addresses: string[]): ResolveHost =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))

describe('isPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '240.0.0.1',
    '192.0.2.1',
    '198.51.100.7',
    '203.0.113.9',
    '::1',
    '::',
    'fc00::1',
    'fd12::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::a00:1',
    '2002:a00:1::1',
    '2001:db8::1',
    'ff02::1',
    'not an address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false)
  })

  it.each([
    '8.8.8.8',
    '93.184.216.34',
    '172.32.0.1',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '[2606:4700::1]',
  ])('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true)
  })
})

describe('every IANA special-purpose IPv6 block', () => {
  it.each(privateIpv6)('refuses %s (%s) by address, at save time and at connect time', async (address) => {
    expect(isPublicAddress(address)).toBe(false)
    const literal = `https://[${address}]:8443/x`
    expect(await validateOutboundUrl(literal)).toMatchObject({ ok: false, reason: 'forbidden_address' })
    expect(await failureOf({ url: literal, timeoutMs: 1000 })).toBe('forbidden_address')
    // A name that resolves to it, when saved and when the socket is about to connect.
    const resolveHost = resolveTo(address)
    const named = 'https://hooks.example.test:8443/x'
    expect(await validateOutboundUrl(named, { resolveHost })).toMatchObject({
      ok: false,
      reason: 'forbidden_address',
    })
    const lookup = createGuardedLookup({ resolveHost, isAllowed: false })
    const looked = await new Promise<unknown>((resolve) =>
      lookup('hooks.example.test', { all: false }, (error) => resolve(error)),
    )
    expect(looked).toBeInstanceOf(ForbiddenAddressError)
    expect(await failureOf({ url: named, timeoutMs: 1000, resolveHost })).toBe('forbidden_address')
  })

  it.each(publicIpv6)('accepts the global unicast %s', async (address) => {
    expect(isPublicAddress(address)).toBe(true)
    expect(await validateOutboundUrl(`https://[${address}]/x`)).toMatchObject({ ok: true })
  })

  it('reads an IPv6 written with a dotted quad as what it is, not as IPv4-mapped', () => {
    // glibc writes IPv4-compatible answers this way; ipaddr.js alone would judge 8.8.8.8.
    expect(isPublicAddress('::8.8.8.8')).toBe(false)
    expect(isPublicAddress('::ffff:8.8.8.8')).toBe(true)
    expect(isPublicAddress('[::127.0.0.1]')).toBe(false)
  })
})

describe('refusals without the allow list', () => {
  const forbidden = [
    'https://127.0.0.1/',
    'https://10.0.0.1/',
    'https://169.254.169.254/latest/meta-data/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://2130706433/', // 127.0.0.1 as one number; the URL parser normalises it
    'https://localhost/',
  ]

  it('refuses plain http, even to a public address', async () => {
    for (const url of ['http://93.184.216.34/', 'http://127.0.0.1/', 'ftp://93.184.216.34/']) {
      expect(await validateOutboundUrl(url)).toMatchObject({ ok: false, reason: 'not_https' })
      expect(await failureOf({ url, timeoutMs: 1000 })).toBe('not_https')
    }
  })

  it.each(forbidden)('validateOutboundUrl refuses %s', async (url) => {
    expect(await validateOutboundUrl(url)).toMatchObject({ ok: false, reason: 'forbidden_address' })
  })

  it.each(forbidden)('outboundFetch refuses %s', async (url) => {
    expect(await failureOf({ url, timeoutMs: 2000 })).toBe('forbidden_address')
  })

  it('refuses a name when any of its addresses is private', async () => {
    const resolveHost = resolveTo('93.184.216.34', '10.1.2.3')
    expect(await validateOutboundUrl('https://mixed.example.test/', { resolveHost })).toMatchObject({
      ok: false,
      reason: 'forbidden_address',
    })
    expect(await failureOf({ url: 'https://mixed.example.test/', timeoutMs: 2000, resolveHost })).toBe(
      'forbidden_address',
    )
  })

  it('refuses at connect time a name that resolved to a public address at save time (DNS rebinding)', async () => {
    const target = await startTarget((_, response) => respondJson(response, 200, {}))
    let lookups = 0
    const resolveHost: ResolveHost = async () => [
      { address: lookups++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 },
    ]
    const url = `https://rebind.example.test:${target.port}/`
    expect(await validateOutboundUrl(url, { resolveHost })).toMatchObject({ ok: true })
    expect(await failureOf({ url, timeoutMs: 2000, resolveHost })).toBe('forbidden_address')
    expect(lookups).toBe(2)
    expect(target.received).toHaveLength(0)
  })

  it('accepts an https URL whose name resolves to public addresses only', async () => {
    const check = await validateOutboundUrl('https://api.example.test/hook', {
      resolveHost: resolveTo('93.184.216.34', '2606:4700::1'),
    })
    expect(check).toMatchObject({ ok: true })
    expect(check.ok && check.url.href).toBe('https://api.example.test/hook')
  })

  it('refuses malformed URLs, embedded credentials and names that do not resolve', async () => {
    expect(await validateOutboundUrl('not a url')).toMatchObject({ ok: false, reason: 'invalid_url' })
    expect(await validateOutboundUrl('https://user:pw@api.example.test/')).toMatchObject({
      ok: false,
      reason: 'invalid_url',
    })
    const resolveHost: ResolveHost = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })
    }
    expect(await validateOutboundUrl('https://nowhere.example.test/', { resolveHost })).toMatchObject({
      ok: false,
      reason: 'unresolvable',
    })
  })
})

describe('outboundFetch to an allowed host', () => {
  it('lets allow-listed hosts use http and loopback, and returns status, headers and body', async () => {
    const target = await startTarget((request, response) =>
      respondJson(response, 201, { echo: request.body }),
    )
    const allowHosts = [target.hostAndPort]
    expect(await validateOutboundUrl(`${target.origin}/x`, { allowHosts })).toMatchObject({ ok: true })
    const response = await outboundFetch({
      url: `${target.origin}/x`,
      method: 'POST',
      headers: { 'x-custom': 'yes', host: 'evil.example', 'content-length': '1' },
      body: 'hello',
      timeoutMs: 2000,
      allowHosts,
    })
    expect(response).toMatchObject({ status: 201, bodyText: '{"echo":"hello"}' })
    expect(response.headers['content-type']).toBe('application/json')
    expect(target.received[0]).toMatchObject({ method: 'POST', url: '/x', body: 'hello' })
    expect(target.received[0]?.headers).toMatchObject({ 'x-custom': 'yes', host: target.hostAndPort })
  })

  it('allows by host name alone and connects to the address the lookup gave', async () => {
    const target = await startTarget((_, response) => respondJson(response, 200, { ok: true }))
    const response = await outboundFetch({
      url: `http://functions.example.test:${target.port}/`,
      timeoutMs: 2000,
      allowHosts: ['functions.example.test'],
      resolveHost: resolveTo('127.0.0.1'),
    })
    expect(response.status).toBe(200)
    expect(target.received).toHaveLength(1)
  })

  it('does not allow another port of an allow-listed host:port', async () => {
    const url = `http://127.0.0.1:${await findClosedPort()}/`
    expect(await failureOf({ url, timeoutMs: 1000, allowHosts: ['127.0.0.1:1'] })).toBe('not_https')
  })

  it('refuses redirects without following them', async () => {
    const target = await startTarget((_, response) => {
      response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' })
      response.end()
    })
    expect(await failureOf({ url: target.origin, timeoutMs: 2000, allowHosts: [target.hostAndPort] })).toBe(
      'redirect',
    )
    expect(target.received).toHaveLength(1)
  })

  it('caps the response at 1 MiB by default, streamed or announced', async () => {
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(1024 * 1024)
    const target = await startTarget((request, response) => {
      const size = Number(request.url.slice(1))
      if (request.method === 'PUT') response.writeHead(200, { 'content-length': String(size) })
      // Chunked, with no length announced, so only counting the bytes can catch it.
      for (let sent = 0; sent < size; sent += 64 * 1024)
        response.write('x'.repeat(Math.min(64 * 1024, size - sent)))
      response.end()
    })
    const allowHosts = [target.hostAndPort]
    const exact = await outboundFetch({ url: `${target.origin}/${1024 * 1024}`, timeoutMs: 5000, allowHosts })
    expect(exact.bodyText).toHaveLength(1024 * 1024)
    for (const method of ['GET', 'PUT'] as const) {
      const url = `${target.origin}/${1024 * 1024 + 1}`
      expect(await failureOf({ url, method, timeoutMs: 5000, allowHosts })).toBe('too_large')
    }
    expect(await failureOf({ url: `${target.origin}/11`, timeoutMs: 5000, allowHosts, maxBytes: 10 })).toBe(
      'too_large',
    )
  })

  it('times out an endpoint that never answers, or stops half way', async () => {
    const target = await startTarget((request, response) => {
      if (request.url === '/half') response.writeHead(200).write('{"partial":')
    })
    const allowHosts = [target.hostAndPort]
    expect(await failureOf({ url: `${target.origin}/never`, timeoutMs: 200, allowHosts })).toBe('timeout')
    expect(await failureOf({ url: `${target.origin}/half`, timeoutMs: 200, allowHosts })).toBe('timeout')
  })

  it('reports an endpoint that cannot be reached as a network failure', async () => {
    const hostAndPort = `127.0.0.1:${await findClosedPort()}`
    expect(
      await failureOf({ url: `http://${hostAndPort}/`, timeoutMs: 2000, allowHosts: [hostAndPort] }),
    ).toBe('network')
  })
})
