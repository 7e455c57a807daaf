import type { KnowledgePassage } from '@parley/shared'
import type { AppContext } from '../context.ts'
import { textSearchConfigOf } from './language.ts'
import * as store from './store.ts'
import { vectorHooksOf } from './vector-hooks.ts'

export type SearchMode = 'fulltext' | 'vector' | 'hybrid'

export type SearchInput = { organizationId: string; sourceIds: string[] | null; query: string; limit: number }

/** Reciprocal rank fusion's constant: ranks past the first few count for little. */
const RRF_K = 60

/** Each list's rank r adds 1/(K + r); a chunk both lists find rises above one only one finds. */
export const fuseRanks = (lists: store.FoundChunk[][], limit: number): store.FoundChunk[] => {
  const scores = new Map<number, { chunk: store.FoundChunk; score: number }>()
  for (const list of lists) {
    list.forEach((chunk, rank) => {
      const entry = scores.get(chunk.id) ?? { chunk, score: 0 }
      entry.score += 1 / (RRF_K + rank + 1)
      scores.set(chunk.id, entry)
    })
  }
  return [...scores.values()]
    .sort((a, b) => b.score - a.score || a.chunk.id - b.chunk.id)
    .slice(0, limit)
    .map(({ chunk, score }) => ({ ...chunk, score }))
}

const toPassage = (chunk: store.FoundChunk): KnowledgePassage => ({
  sourceId: chunk.sourceId,
  title: chunk.title,
  url: chunk.url,
  page: chunk.pageNumber,
  text: chunk.content,
  score: chunk.score,
})

/**
 * The best passages for a question among the organization's sources (or the given ones, which
 * must be its own: others simply find nothing). Full-text always; with embeddings, vector search
 * too, the two fused by reciprocal rank.
 */
export const searchPassages = async (
  ctx: AppContext,
  input: SearchInput,
): Promise<{ mode: SearchMode; passages: KnowledgePassage[] }> => {
  const codes = await store.languagesOf(ctx.db, {
    organizationId: input.organizationId,
    sourceIds: input.sourceIds,
  })
  const languages = [...new Set(codes.map(textSearchConfigOf))]
  const hooks = vectorHooksOf(ctx)
  // Fusion reaches deeper into each list; full-text alone needs only what it answers.
  const depth = hooks ? input.limit * 4 : input.limit
  const [fullText, vectors] = await Promise.all([
    store.searchFullText(ctx.db, { ...input, languages, limit: depth }),
    hooks
      ? hooks.search({ ...input, limit: depth }).catch((error: unknown) => {
          ctx.logger.warn({ err: error }, 'knowledge vector search failed; full-text only')
          return null
        })
      : Promise.resolve(null),
  ])
  if (!vectors) return { mode: 'fulltext', passages: fullText.slice(0, input.limit).map(toPassage) }
  return { mode: 'hybrid', passages: fuseRanks([fullText, vectors], input.limit).map(toPassage) }
}
