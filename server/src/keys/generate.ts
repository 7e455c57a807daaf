import { hash, randomBytes } from 'node:crypto'

export const WIDGET_KEY_PREFIX = 'tk_widget_'

/**
 * base64url has exactly 64 symbols, so every 6 random bits map to one character with no modulo
 * bias: 48 bytes give the 64-character secret key, 24 bytes the 32 characters after the prefix.
 */
export const generateSecretKey = () => randomBytes(48).toString('base64url')
export const generateWidgetKey = () => `${WIDGET_KEY_PREFIX}${randomBytes(24).toString('base64url')}`

/** Keys are stored only as this digest; lookups go by digest. */
export const hashKey = (key: string) => hash('sha256', key, 'hex')

/**
 * What a key looks like after creation: its first 8 characters of its own, then a mask. A
 * widget key shows `tk_widget_` and 8 random characters, so two widget keys can be told apart.
 */
export const displayPrefix = (key: string) => {
  const shared = key.startsWith(WIDGET_KEY_PREFIX) ? WIDGET_KEY_PREFIX.length : 0
  return `${key.slice(0, shared + 8)}${'•'.repeat(8)}`
}
