import { llm } from '@livekit/agents'
import { runWebSearch, WEB_SEARCH_TOOL } from '@parley/platform'
import type { CallSetup } from '@parley/shared'
import { asToolParameters } from './json-schema.ts'

/** The web_search built-in, the same search text chat runs; a failed search is a ToolError. */
export const webSearchTool = ({
  search,
  allowHosts,
}: {
  search: NonNullable<CallSetup['webSearch']>
  allowHosts: readonly string[]
}) =>
  llm.tool({
    name: WEB_SEARCH_TOOL.function.name,
    description: WEB_SEARCH_TOOL.function.description ?? '',
    parameters: asToolParameters(WEB_SEARCH_TOOL.function.parameters ?? {}),
    execute: async (args: unknown) => {
      const outcome = await runWebSearch({ search, allowHosts }, args)
      if (!outcome.ok) throw new llm.ToolError(outcome.error)
      return { results: outcome.results }
    },
  })
