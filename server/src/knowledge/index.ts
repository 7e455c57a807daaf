/**
 * The knowledge area: an organization's own site and documents as sources, fetched and parsed by
 * jobs, chunked and searched (full-text always, vectors with an embedding model), and the passages
 * an agent's reply is given. Other areas use it through this module only.
 */
import type { AppContext } from '../context.ts'
import { scheduleKnowledgeRefresh } from './ingest.ts'

export { registerKnowledgeJobs } from './ingest.ts'
export { registerKnowledgeRoutes } from './routes.ts'
export { searchPassages } from './search.ts'

/** At start: the scheduled re-fetch sweep (workers only). */
export const startKnowledge = async (ctx: AppContext) => {
  if (ctx.config.role !== 'api') await scheduleKnowledgeRefresh(ctx)
}
