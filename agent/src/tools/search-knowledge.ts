import { llm } from '@livekit/agents'
import { knowledgeLimits } from '@parley/shared'
import { z } from 'zod'
import type { WorkerApi } from '../worker-api.ts'

export const SEARCH_KNOWLEDGE_TOOL = 'search_knowledge'

/**
 * The `search_knowledge` tool of an agent with knowledge sources: a follow-up search of the
 * owner's site and documents (the server searches the call's live agent's sources). The model
 * gets each passage's title, URL or page and text; a failed search is a ToolError it can say.
 */
export const searchKnowledgeTool = ({ api, callId }: { api: WorkerApi; callId: string }) =>
  llm.tool({
    name: SEARCH_KNOWLEDGE_TOOL,
    description:
      'Searches the owner’s own website and documents. Use it when the person asks about something ' +
      'the passages you were given do not answer (opening hours, prices, policies, products).',
    parameters: z.object({
      query: z.string().describe('What to look for, in a few words or a short question'),
    }),
    execute: async ({ query }) => {
      if (query.trim() === '') throw new llm.ToolError('Say what to look for.')
      const found = await api
        .searchKnowledge(callId, query.slice(0, knowledgeLimits.maxQueryChars))
        .catch(() => {
          throw new llm.ToolError('The knowledge search is unavailable right now.')
        })
      if (found.passages.length === 0)
        return { passages: [], note: 'Nothing in the owner’s site and documents matches this.' }
      return {
        passages: found.passages.map(({ title, url, page, text }) => ({ title, url, page, text })),
        note: 'Answer from these passages; if they do not answer the question, say you do not know.',
      }
    },
  })

/**
 * The passages for the person's latest words, as the instruction chat replies get (answer from
 * these, say when they do not answer it), or null when nothing matched or the search failed: a
 * reply never waits on more than one quick attempt, and goes on without passages.
 */
export const knowledgeForTurn =
  ({ api, callId, onError }: { api: WorkerApi; callId: string; onError: (error: unknown) => void }) =>
  async (words: string): Promise<string | null> => {
    if (words.trim() === '') return null
    try {
      return (await api.searchKnowledge(callId, words.slice(0, knowledgeLimits.maxQueryChars))).instruction
    } catch (error) {
      onError(error)
      return null
    }
  }
