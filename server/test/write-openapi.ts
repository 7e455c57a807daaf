import { writeFileSync } from 'node:fs'
import { startTestServer } from './helpers/test-server.ts'

/**
 * `npm run openapi:write`: writes the document the server serves to client/openapi.json, from
 * which @parley/client's types are generated at build time. openapi.test.ts fails while the two
 * differ.
 */
const server = await startTestServer()
const document = (await (await server.request('/v1/openapi.json')).json()) as Record<string, unknown>
await server.destroy()
const snapshot = { ...document, servers: [{ url: 'http://localhost:8787' }] }
writeFileSync(new URL('../../client/openapi.json', import.meta.url), `${JSON.stringify(snapshot, null, 2)}\n`)
process.exit(0)
