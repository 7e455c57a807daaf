import type { Catalogue } from '@parley/shared'
import type { Kysely } from 'kysely'
import type { Logger } from 'pino'
import type { Config } from './config.ts'
import type { Database } from './db/index.ts'

/** What every service needs, built once at boot and passed down explicitly. */
export type AppContext = Readonly<{
  config: Config
  db: Kysely<Database>
  logger: Logger
  /** Models, STT, TTS, voices and built-in functions this deployment offers. */
  catalogue: Catalogue
}>
