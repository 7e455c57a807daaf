import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

const VERSION = 'v1'

/**
 * The AES key of each ENCRYPTION_KEY, derived once: boxes are made where they are used, and HKDF
 * on each cost a chat reply about 0.1 ms (its provider key is opened for every reply).
 */
const derivedKeys = new Map<string, Buffer>()

const keyOf = (encryptionKey: string) => {
  let key = derivedKeys.get(encryptionKey)
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', encryptionKey, 'parley', 'parley-at-rest-v1', 32))
    derivedKeys.set(encryptionKey, key)
  }
  return key
}

/**
 * Encrypts small secrets at rest (provider keys, webhook secrets, function headers) with
 * AES-256-GCM under a key derived from ENCRYPTION_KEY. Tampering makes `open` throw.
 */
export const createSecretBox = (encryptionKey: string) => {
  const key = keyOf(encryptionKey)
  return {
    seal: (plaintext: string): string => {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
      return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')}`
    },
    open: (box: string): string => {
      const [version, payload] = box.split(':')
      if (version !== VERSION || !payload) throw new Error('unknown secret box format')
      const bytes = Buffer.from(payload, 'base64url')
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12))
      decipher.setAuthTag(bytes.subarray(12, 28))
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')
    },
  }
}

export type SecretBox = ReturnType<typeof createSecretBox>
