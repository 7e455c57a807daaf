import { runWebSearch } from '@parley/platform'
import type { AppContext } from '../context.ts'

/** The chat's web_search tool: the outcome as JSON for the model; failures logged, never ending the reply. */
export const searchWeb = async (ctx: AppContext, args: unknown): Promise<string> => {
  const search = ctx.config.search
  if (!search) return JSON.stringify({ error: 'web search is not configured' })
  const outcome = await runWebSearch({ search, allowHosts: ctx.config.outboundAllowHosts }, args)
  if (outcome.ok) return JSON.stringify({ results: outcome.results })
  if (outcome.cause) ctx.logger.warn({ err: outcome.cause }, 'web search failed')
  return JSON.stringify({ error: outcome.error })
}
