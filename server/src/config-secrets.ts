import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const generatedSecretNames = ['JWT_SECRET', 'ADMIN_TOKEN', 'ENCRYPTION_KEY'] as const
export type GeneratedSecretName = (typeof generatedSecretNames)[number]
export type GeneratedSecrets = Record<GeneratedSecretName, string>

/** Dev secrets live in DATA_DIR/secrets.json (mode 0600) so they survive restarts. */
export const readOrCreateSecrets = (dataDir: string): GeneratedSecrets => {
  const file = join(dataDir, 'secrets.json')
  const stored = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<GeneratedSecrets>) : {}
  if (generatedSecretNames.every((name) => typeof stored[name] === 'string'))
    return stored as GeneratedSecrets
  // Keep what an older DATA_DIR already has (tokens in use, data encrypted with it); add what is missing.
  const secrets: GeneratedSecrets = {
    JWT_SECRET: stored.JWT_SECRET ?? randomBytes(48).toString('base64url'),
    ADMIN_TOKEN: stored.ADMIN_TOKEN ?? randomBytes(32).toString('base64url'),
    ENCRYPTION_KEY: stored.ENCRYPTION_KEY ?? randomBytes(32).toString('base64url'),
  }
  mkdirSync(dataDir, { recursive: true })
  writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 })
  chmodSync(file, 0o600)
  return secrets
}
