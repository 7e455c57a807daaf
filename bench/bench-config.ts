import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../server/src/config.ts'

/**
 * A throwaway configuration for a benchmark server: fresh secrets and DATA_DIR, the embedded
 * database unless DATABASE_URL is set, Redis when REDIS_URL is. `removeDataDir` cleans up.
 */
export const benchConfig = (extra: Record<string, string> = {}) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-'))
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    JWT_SECRET: randomBytes(32).toString('hex'),
    ADMIN_TOKEN: randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    ...extra,
  })
  return { config, removeDataDir: () => rmSync(dataDir, { recursive: true, force: true }) }
}
