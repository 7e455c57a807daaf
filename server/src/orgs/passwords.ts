import { hash, verify } from '@node-rs/argon2'

// argon2id (the library's const enum value 2, which isolated modules cannot import);
// OWASP's baseline: 19 MiB, 2 iterations, 1 lane.
const ARGON2ID = 2
const options = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 }

export const hashPassword = (password: string): Promise<string> => hash(password, options)

/** Verifying against this when the email is unknown keeps both answers equally slow. */
const unknownUserHash = hash('parley-no-such-user', options)

export const verifyPassword = async (passwordHash: string | null, password: string): Promise<boolean> => {
  const target = passwordHash ?? (await unknownUserHash)
  const matches = await verify(target, password).catch(() => false)
  return passwordHash !== null && matches
}
