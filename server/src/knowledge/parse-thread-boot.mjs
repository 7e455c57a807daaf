// The parsing thread's entry: TypeScript is loaded through tsx, as the server itself is.
import { workerData } from 'node:worker_threads'
import { register } from 'tsx/esm/api'

register()
await import(workerData.entry)
