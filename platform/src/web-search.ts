import { z } from 'zod'
import { OutboundError, outboundFetch } from './outbound/outbound.ts'

/** A search endpoint: SEARCH_URL and, when given, SEARCH_API_KEY. */
export type SearchEndpoint = Readonly<{ url: string; apiKey: string | null }>

const SEARCH_TIMEOUT_MS = 10_000
const MAX_RESULTS = 5
const SNIPPET_CHARS = 500

/** A tool as the chat-completions API declares it (the shape of OpenAI's function tool). */
export type FunctionTool = {
  type: 'function'
  function: { name: string; description: string; parameters: Record<string, unknown> }
}

export const WEB_SEARCH_TOOL: FunctionTool = {
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

export type WebSearchOutcome =
  | { ok: true; results: { title: string; url: string; snippet: string }[] }
  | { ok: false; error: string; cause?: unknown }

/**
 * The web_search built-in, shared by text chat and the voice agent worker: asks the search
 * endpoint (Tavily-compatible: POST {query, max_results} with a bearer key → {results: [{title,
 * url, content}]}) for the top results. Never throws: every failure is an error the model can read.
 */
export const runWebSearch = async (
  { search, allowHosts }: { search: SearchEndpoint; allowHosts: readonly string[] },
  args: unknown,
): Promise<WebSearchOutcome> => {
  const parsed = ZSearchArguments.safeParse(args)
  if (!parsed.success) return { ok: false, error: 'web_search needs a query' }
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
      allowHosts: [...allowHosts],
    })
    if (response.status < 200 || response.status >= 300)
      return { ok: false, error: `the search provider answered ${response.status}` }
    const answer = ZSearchAnswer.safeParse(JSON.parse(response.bodyText))
    if (!answer.success) return { ok: false, error: 'the search provider answered in an unknown format' }
    return {
      ok: true,
      results: answer.data.results.slice(0, MAX_RESULTS).map(({ title, url, content }) => ({
        title,
        url,
        snippet: content.slice(0, SNIPPET_CHARS),
      })),
    }
  } catch (error) {
    return {
      ok: false,
      error: error instanceof OutboundError ? `search failed: ${error.reason}` : 'search failed',
      cause: error,
    }
  }
}
