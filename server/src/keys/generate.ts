import { createHash, randomBytes } from 'node:crypto'

export const WIDGET_KEY_PREFIX = 'tk_widget_'

/**
 * base64url has exactly 64 symbols, so every 6 random bits map to one character with no modulo
 * bias: 48 bytes give the 64-character secret key, 24 bytes the 32 characters after the prefix.
 */
export const generateSecretKey = () => randomBytes(48).toString('base64url')
export const generateWidgetKey = () => `${WIDGET_KEY_PREFIX}${randomBytes(24).toString('base64url')}`

/** Keys are stored only as this digest; lookups go by digest. */
export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex')

/** What a key looks like after creation: its first 8 characters, then a mask. */
export const displayPrefix = (key: string) => `${key.slice(0, 8)}${'•'.repeat(8)}`
