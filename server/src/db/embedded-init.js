// Creates the embedded database's files (PostgreSQL's initdb) in a process of its own: see
// initializeDataDirectory in embedded.ts. Plain JavaScript, so it starts without a TypeScript loader.
import { PGlite } from '@electric-sql/pglite'

const directory = process.argv[2]
if (!directory) throw new Error('usage: embedded-init.js <data directory>')
const pglite = await PGlite.create({ dataDir: directory })
await pglite.close()
