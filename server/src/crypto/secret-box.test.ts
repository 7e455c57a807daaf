import { describe, expect, it } from 'vitest'
import { createSecretBox } from './secret-box.ts'

describe('secret box', () => {
  const box = createSecretBox('k'.repeat(40))

  it('round-trips and never repeats a ciphertext', () => {
    const a = box.seal('sk-live-123')
    const b = box.seal('sk-live-123')
    expect(a).not.toBe(b)
    expect(a).not.toContain('sk-live')
    expect(box.open(a)).toBe('sk-live-123')
  })

  it('refuses tampered data and another key', () => {
    const sealed = box.seal('secret')
    const bytes = Buffer.from(sealed.slice(3), 'base64url')
    bytes[bytes.length - 1] = (bytes.at(-1) ?? 0) ^ 1 // flip one bit of the ciphertext itself
    expect(() => box.open(`v1:${bytes.toString('base64url')}`)).toThrow()
    expect(() => createSecretBox('x'.repeat(40)).open(sealed)).toThrow()
    expect(() => box.open('plain text')).toThrow()
  })
})
