import { createServer } from 'node:net'
import { ConfigError } from './config.ts'

/** Whether something already listens on `port` (any address), found by trying to listen there. */
export const isPortInUse = (port: number) =>
  new Promise<boolean>((resolve, reject) => {
    const probe = createServer()
    probe.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' ? resolve(true) : reject(error),
    )
    probe.listen(port, () => probe.close(() => resolve(false)))
  })

/**
 * Refuses a busy port before anything is built or migrated, in one line that says what to do.
 * Port 0 (any free port) always passes.
 */
export const assertPortFree = async (port: number) => {
  if (port !== 0 && (await isPortInUse(port)))
    throw new ConfigError(
      `Port ${port} is already in use: stop what listens there, or set PORT to another port`,
    )
}
