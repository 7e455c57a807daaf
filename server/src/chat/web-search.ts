import { z } from 'zod'
import type { AppContext } from '../context.ts'
import { OutboundError, outboundFetch } from '../http/outbound.ts'
import type { LlmTool } from './llm.ts'

const SEARCH_TIMEOUT_MS = 10_000
const MAX_RESULTS = 5
const SNIPPET_CHARS = 500

export const WEB_SEARCH_TOOL: LlmTool = {
  type: 'function',
  function: {
    name: 'web_search',
    description: 'Search the web for current information. Use for facts you do not know.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'What to search for' } },
      required: ['query'],
    },
  },
}

const ZSearchArguments = z.object({ query: z.string().trim().min(1).max(400) })

/** Tavily's answer (`POST /search`); other providers are reached through a compatible endpoint. */
const ZSearchAnswer = z.object({
  results: z.array(z.object({ title: z.string(), url: z.string(), content: z.string().default('') })),
})

/**
 * The web_search built-in: asks SEARCH_URL (Tavily-compatible: POST {query, max_results} with a
 * bearer key → {results: [{title, url, content}]}) and gives the model the top results as JSON.
 * Failures become an error the model can read; they never end the reply.
 */
export const searchWeb = async (ctx: AppContext, args: unknown): Promise<string> => {
  const search = ctx.config.search
  if (!search) return JSON.stringify({ error: 'web search is not configured' })
  const parsed = ZSearchArguments.safeParse(args)
  if (!parsed.success) return JSON.stringify({ error: 'web_search needs a query' })
  try {
    const response = await outboundFetch({
      url: search.url,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(search.apiKey ? { authorization: `Bearer ${search.apiKey}` } : {}),
      },
      body: JSON.stringify({ query: parsed.data.query, max_results: MAX_RESULTS }),
      timeoutMs: SEARCH_TIMEOUT_MS,
      allowHosts: [...ctx.config.outboundAllowHosts],
    })
    if (response.status < 200 || response.status >= 300)
      return JSON.stringify({ error: `the search provider answered ${response.status}` })
    const answer = ZSearchAnswer.safeParse(JSON.parse(response.bodyText))
    if (!answer.success) return JSON.stringify({ error: 'the search provider answered in an unknown format' })
    return JSON.stringify({
      results: answer.data.results.slice(0, MAX_RESULTS).map(({ title, url, content }) => ({
        title,
        url,
        snippet: content.slice(0, SNIPPET_CHARS),
      })),
    })
  } catch (error) {
    ctx.logger.warn({ err: error }, 'web search failed')
    return JSON.stringify({
      error: error instanceof OutboundError ? `search failed: ${error.reason}` : 'search failed',
    })
  }
}
