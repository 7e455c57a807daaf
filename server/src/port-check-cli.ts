/** `npm start`'s first step: a busy PORT stops it in one line, before the build. */
import { ConfigError, loadConfig } from './config.ts'
import { assertPortFree } from './port-check.ts'

try {
  const config = loadConfig()
  if (config.role !== 'worker' && config.role !== 'agent') await assertPortFree(config.port)
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  process.stderr.write(`${error.message}\n`)
  process.exit(1)
}
