import { describe, expect, it } from 'vitest'
import {
  displayPrefix,
  generateSecretKey,
  generateWidgetKey,
  hashKey,
  WIDGET_KEY_PREFIX,
} from './generate.ts'

const URL_SAFE = /^[A-Za-z0-9_-]+$/

describe('key formats over 1,000 generated keys', () => {
  const secrets = Array.from({ length: 1000 }, generateSecretKey)
  const widgets = Array.from({ length: 1000 }, generateWidgetKey)

  it('secret keys: 64 URL-safe characters, no prefix, all distinct', () => {
    for (const key of secrets) {
      expect(key).toHaveLength(64)
      expect(key).toMatch(URL_SAFE)
      expect(key.startsWith(WIDGET_KEY_PREFIX)).toBe(false)
    }
    expect(new Set(secrets).size).toBe(1000)
  })

  it('widget keys: tk_widget_ then 32 URL-safe characters, all distinct', () => {
    for (const key of widgets) {
      expect(key).toHaveLength(WIDGET_KEY_PREFIX.length + 32)
      expect(key.startsWith(WIDGET_KEY_PREFIX)).toBe(true)
      expect(key.slice(WIDGET_KEY_PREFIX.length)).toMatch(URL_SAFE)
    }
    expect(new Set(widgets).size).toBe(1000)
  })

  it('uses the whole 64-symbol alphabet (no symbol is unreachable)', () => {
    const seen = new Set([...secrets.join('')])
    expect(seen.size).toBe(64)
  })

  it('display prefix: the first 8 characters, then a mask that reveals nothing more', () => {
    for (const key of secrets.slice(0, 50)) {
      const prefix = displayPrefix(key)
      expect(prefix.slice(0, 8)).toBe(key.slice(0, 8))
      expect(prefix.slice(8)).toMatch(/^•+$/)
    }
  })

  it('display prefix of a widget key: tk_widget_ and 8 characters of its own, so keys differ', () => {
    const prefixes = widgets.slice(0, 50).map(displayPrefix)
    for (const [index, prefix] of prefixes.entries()) {
      expect(prefix.slice(0, 18)).toBe(widgets[index]?.slice(0, 18))
      expect(prefix.slice(18)).toMatch(/^•+$/)
    }
    expect(new Set(prefixes).size).toBe(prefixes.length)
  })

  it('hash: hex SHA-256, the same for the same key', () => {
    const key = secrets[0] as string
    expect(hashKey(key)).toMatch(/^[0-9a-f]{64}$/)
    expect(hashKey(key)).toBe(hashKey(key))
    expect(hashKey(key)).not.toBe(hashKey(secrets[1] as string))
  })
})
