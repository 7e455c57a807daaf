import { describe, expect, it } from 'vitest'
import { formatDomainRule, isOriginAllowed, parseDomainRule } from './origin.ts'

type Case = [origin: string | null, allowedDomains: string[], expected: boolean]

/** The rules the issue names, then more edge cases; each row is one request Origin. */
const issueCases: Case[] = [
  ['https://example.com', ['example.com'], true],
  ['https://shop.example.com', ['example.com'], true],
  ['http://example.com', ['example.com'], true],
  ['https://example.com', ['https://example.com'], true],
  ['http://example.com', ['https://example.com'], false],
  ['http://localhost:5173', [], true],
  ['http://localhost', ['example.com'], true],
  [null, ['example.com'], false],
  ['https://other.org', ['example.com'], false],
  ['https://evil-example.com', ['example.com'], false],
  ['https://example.com.evil.io', ['example.com'], false],
  ['https://xn--bcher-kva.de', ['bücher.de'], true],
  ['https://bücher.de', ['BÜCHER.de'], true],
  ['https://EXAMPLE.COM', ['example.com'], true],
  ['https://example.com', ['EXAMPLE.COM'], true],
  ['https://example.com:8443', ['example.com:8443'], true],
  ['https://example.com', ['example.com:8443'], false],
]

const moreCases: Case[] = [
  ['https://a.b.c.example.com', ['example.com'], true],
  ['https://example.com', ['shop.example.com'], false],
  ['https://www.shop.example.com', ['shop.example.com'], true],
  ['https://notexample.com', ['example.com'], false],
  ['https://example.co', ['example.com'], false],
  ['https://example.com.', ['example.com'], true],
  ['https://example.com', ['*.example.com'], true],
  ['https://x.example.com', ['*.example.com'], true],
  ['https://example.com', ['https://example.com/'], true],
  ['https://example.com:443', ['example.com:443'], true],
  ['https://example.com', ['example.com:443'], true],
  ['http://example.com', ['example.com:443'], false],
  ['http://example.com:8080', ['example.com'], true],
  ['https://example.com', ['other.org', 'example.com'], true],
  ['https://example.com', [], false],
  ['null', ['example.com'], false],
  ['', ['example.com'], false],
  ['not a url', ['example.com'], false],
  ['ftp://example.com', ['example.com'], false],
  ['https://user@example.com', ['example.com'], false],
  ['https://example.com/path', ['example.com'], false],
  ['https://10.0.0.5', ['10.0.0.5'], true],
  ['https://1.10.0.0.5', ['10.0.0.5'], false],
  ['https://127.0.0.1:3000', [], false],
  ['https://localhost.evil.io', [], false],
  ['https://evil.io', ['localhost'], false],
  ['https://example.com', ['exa mple.com', 'example.com'], true],
  ['https://example.com', ['https://'], false],
  ['https://münchen.example', ['xn--mnchen-3ya.example'], true],
  ['https://sub.xn--bcher-kva.de', ['bücher.de'], true],
]

describe('isOriginAllowed', () => {
  it.each([...issueCases, ...moreCases])('%s against %j → %s', (origin, allowedDomains, expected) => {
    expect(isOriginAllowed({ origin, allowedDomains })).toBe(expected)
  })

  it('has at least 20 cases beyond the issue table', () => {
    expect(moreCases.length).toBeGreaterThanOrEqual(20)
  })
})

describe('parseDomainRule', () => {
  it.each([
    ['Example.COM', 'example.com'],
    ['https://Shop.Example.com:8443/', 'https://shop.example.com:8443'],
    ['*.bücher.de', 'xn--bcher-kva.de'],
    ['example.com.', 'example.com'],
  ])('normalizes %s to %s', (entry, stored) => {
    const rule = parseDomainRule(entry)
    expect(rule && formatDomainRule(rule)).toBe(stored)
  })

  it.each([
    '',
    'https://',
    'exa mple.com',
    'example.com/path',
    'ws://example.com',
    'example.com:99999',
    '-a.com',
  ])('refuses %j', (entry) => {
    expect(parseDomainRule(entry)).toBeNull()
  })
})
