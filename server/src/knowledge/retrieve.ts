import type { KnowledgePassage, ReplySource } from '@parley/shared'
import type { AppContext } from '../context.ts'
import { searchPassages } from './search.ts'

/** Passages a reply is given, and the sources the visitor is shown. */
export type Retrieval = { passages: KnowledgePassage[]; sources: ReplySource[] }

/** Prompt room for passages: about six passages of a thousand characters. */
export const KNOWLEDGE_TOKEN_BUDGET = 1500
const CANDIDATES = 8
const SNIPPET_CHARS = 200

const tokensOf = (text: string) => Math.ceil(text.length / 4)

const snippetOf = (text: string) =>
  text.length <= SNIPPET_CHARS ? text : `${text.slice(0, SNIPPET_CHARS - 1).replace(/\s+\S*$/, '')}…`

/**
 * The best passages for the visitor's message from the agent's sources, within the token budget
 * (best first; the first is kept even when alone it is over). Null when the agent has no sources
 * or nothing matched. Sources are one per title and URL, in the passages' order.
 */
export const retrieveForReply = async (
  ctx: AppContext,
  {
    organizationId,
    sourceIds,
    message,
    tokenBudget = KNOWLEDGE_TOKEN_BUDGET,
  }: { organizationId: string; sourceIds: string[]; message: string; tokenBudget?: number },
): Promise<Retrieval | null> => {
  if (sourceIds.length === 0 || message.trim() === '') return null
  const { passages: found } = await searchPassages(ctx, {
    organizationId,
    sourceIds,
    query: message.slice(0, 500),
    limit: CANDIDATES,
  })
  const passages: KnowledgePassage[] = []
  let used = 0
  for (const passage of found) {
    const cost = tokensOf(passage.title) + tokensOf(passage.text) + 8
    if (passages.length > 0 && used + cost > tokenBudget) break
    passages.push(passage)
    used += cost
  }
  if (passages.length === 0) return null
  const sources: ReplySource[] = []
  for (const passage of passages) {
    if (sources.some(({ title, url }) => title === passage.title && url === passage.url)) continue
    sources.push({ title: passage.title, url: passage.url, snippet: snippetOf(passage.text) })
  }
  return { passages, sources }
}

/** What the model is told: answer from these passages, and say so when they do not answer it. */
export const knowledgeInstruction = (retrieval: Retrieval) =>
  [
    'Answer from the passages below, taken from the owner’s own site and documents. If they do not answer the question, say that you do not know rather than guessing. Do not mention passage numbers.',
    ...retrieval.passages.map(
      (passage, index) =>
        `[${index + 1}] ${passage.title}${passage.url ? ` (${passage.url})` : ''}${passage.page ? `, page ${passage.page}` : ''}\n${passage.text}`,
    ),
  ].join('\n\n')
