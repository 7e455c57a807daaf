import { ConfigError, loadConfig } from '../config.ts'
import { migrateToLatest, openDatabase } from './index.ts'

/** `npm run migrate`: applies pending migrations to DATABASE_URL (or the embedded database) and exits. */
const run = async (): Promise<void> => {
  const config = loadConfig()
  const handle = await openDatabase(config)
  try {
    const applied = await migrateToLatest(handle.db)
    console.log(applied.length === 0 ? 'Database is up to date.' : `Applied: ${applied.join(', ')}`)
  } finally {
    await handle.close()
  }
}

run().catch((error: unknown) => {
  console.error(
    error instanceof ConfigError ? error.message : `Migration failed: ${(error as Error).message}`,
  )
  process.exit(1)
})
