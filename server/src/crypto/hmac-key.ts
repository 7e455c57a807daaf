import { createSecretKey, type KeyObject } from 'node:crypto'

const keys = new Map<string, KeyObject>()

/**
 * The JWT_SECRET as a KeyObject, made once per secret. Given a string, jsonwebtoken first tries
 * to read it as a PEM public (verify) or private (sign) key and only then as an HMAC secret: a
 * failed key parse and a thrown error on every token, about a millisecond of each chat call here.
 */
export const hmacKeyOf = (secret: string): KeyObject => {
  let key = keys.get(secret)
  if (!key) {
    key = createSecretKey(Buffer.from(secret, 'utf8'))
    keys.set(secret, key)
  }
  return key
}
