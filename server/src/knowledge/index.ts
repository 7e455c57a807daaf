/**
 * The knowledge area: an organization's own site and documents as sources, fetched and parsed by
 * jobs, chunked and searched (full-text always, vectors with an embedding model), and the passages
 * an agent's reply is given. Other areas use it through this module only.
 */
import { registerKnowledgeSourceCheck } from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import type { Executor } from '../db/index.ts'
import { scheduleKnowledgeRefresh } from './ingest.ts'
import { existingSourceIds } from './store.ts'
import { startVectors } from './vectors.ts'

export { registerKnowledgeJobs } from './ingest.ts'
export { knowledgeInstruction, type Retrieval, retrieveForReply } from './retrieve.ts'
export { registerKnowledgeRoutes } from './routes.ts'
export { searchPassages } from './search.ts'

/** The first of `ids` that is not a knowledge source of the organization, or null. */
export const findMissingKnowledgeSource = async (
  db: Executor,
  { organizationId, ids }: { organizationId: string; ids: string[] },
) => {
  const found = new Set(await existingSourceIds(db, { organizationId, ids }))
  return ids.find((id) => !found.has(id)) ?? null
}

/** At start: vectors when an embedding model is configured, the scheduled re-fetch sweep (workers only). */
export const startKnowledge = async (ctx: AppContext) => {
  await startVectors(ctx)
  if (ctx.config.role !== 'api') await scheduleKnowledgeRefresh(ctx)
}

registerKnowledgeSourceCheck(findMissingKnowledgeSource)
