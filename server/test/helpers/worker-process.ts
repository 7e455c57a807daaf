/**
 * A separate Parley process for tests that must kill a worker for real (SIGKILL): it starts the
 * server from its environment (the test passes ROLE=worker and the shared DATABASE_URL) and says
 * `ready` on stdout once it is running. Run with `node --import tsx`.
 */
import { loadConfig } from '../../src/config.ts'
import { start } from '../../src/server.ts'

await start({ config: loadConfig(process.env) })
process.stdout.write('ready\n')
