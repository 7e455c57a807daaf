/** memory/: other areas use it through this file. */
export { ingestMemory, recallMemory } from './service.ts'
