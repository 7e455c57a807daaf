import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

export type EmbeddedPostgres = {
  connectionString: string
  stop: () => Promise<void>
}

/**
 * Starts PGlite persisted in `<dataDir>/pg` and exposes it on a loopback port, so the same `pg`
 * code runs against it as against a real server. LISTEN/NOTIFY does not cross the socket: anything
 * that relies on notifications must also poll.
 */
export const startEmbeddedPostgres = async ({
  dataDir,
  maxConnections,
}: {
  dataDir: string
  maxConnections: number
}): Promise<EmbeddedPostgres> => {
  const directory = join(dataDir, 'pg')
  mkdirSync(directory, { recursive: true })
  const pglite = await PGlite.create({ dataDir: directory })
  const server = new PGLiteSocketServer({ db: pglite, host: '127.0.0.1', port: 0, maxConnections })
  await server.start()
  const address = server.getServerConn()
  return {
    connectionString: `postgres://postgres@${address}/postgres?sslmode=disable`,
    stop: async () => {
      await server.stop()
      await pglite.close()
    },
  }
}
