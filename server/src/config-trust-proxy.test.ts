import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from './config.ts'

const base = { JWT_SECRET: 'j'.repeat(32), ADMIN_TOKEN: 'a'.repeat(32) }

describe('TRUST_PROXY', () => {
  it.each([
    [undefined, false],
    ['false', false],
    ['0', false],
    ['1', 1],
    ['Loopback', ['loopback']],
    ['loopback, 10.0.0.0/8, 192.168.1.7, fd00::/8', ['loopback', '10.0.0.0/8', '192.168.1.7', 'fd00::/8']],
  ])('reads %j as %j', (value, expected) => {
    expect(
      loadConfig({ ...base, ...(value === undefined ? {} : { TRUST_PROXY: value }) }).trustProxy,
    ).toEqual(expected)
  })

  it.each(['true', '11', 'proxy.example.com', '10.0.0.0/33', 'loopback,'])(
    'refuses %j in one line naming it',
    (value) => {
      expect(() => loadConfig({ ...base, TRUST_PROXY: value })).toThrow(ConfigError)
      expect(() => loadConfig({ ...base, TRUST_PROXY: value })).toThrow(
        /^Invalid configuration: TRUST_PROXY must be/,
      )
    },
  )
})
