/**
 * A separate Parley process for tests that must kill a server for real (SIGKILL): it starts the
 * server from its environment (the test passes ROLE and the shared DATABASE_URL) and says
 * `ready <url>` on stdout once it is running. Run with `node --import tsx`.
 */
import { loadConfig } from '../../src/config.ts'
import { start } from '../../src/server.ts'

const running = await start({ config: loadConfig(process.env) })
process.stdout.write(`ready ${running.url}\n`)
