import type { llm, voice } from '@livekit/agents'
import type { AgentRuntimeConfig, CallSetup, HandoffTarget } from '@parley/shared'
import type { WorkerApi } from '../worker-api.ts'
import { customFunctionTool } from './custom-function.ts'
import { endCallTool } from './end-call.ts'
import { searchKnowledgeTool } from './search-knowledge.ts'
import { transferTools } from './transfer.ts'
import { webSearchTool } from './web-search.ts'

/**
 * An agent's tools: end_call and web_search when it enables them (web_search only when the
 * deployment has a search endpoint), search_knowledge when it has knowledge sources (whether or
 * not function calling is on: the sources are its own), a transfer per handoff target, and its custom functions with
 * their headers from the call setup. A custom function named like a built-in is left out: the
 * built-in keeps its meaning, as in text chat.
 */
export const buildTools = ({
  runtime,
  setup,
  hasLastMessage,
  allowHosts,
  hangUp,
  transfer,
  knowledge,
}: {
  runtime: AgentRuntimeConfig
  setup: CallSetup
  hasLastMessage: boolean
  allowHosts: readonly string[]
  hangUp: () => void
  transfer: (target: HandoffTarget) => Promise<voice.Agent>
  /** The worker API and call its knowledge search goes through. */
  knowledge: { api: WorkerApi; callId: string }
}): llm.ToolContextEntry[] => {
  const builtIns = [
    ...(runtime.builtInFunctions.includes('end_call') ? [endCallTool({ hasLastMessage, hangUp })] : []),
    ...(runtime.builtInFunctions.includes('web_search') && setup.webSearch
      ? [webSearchTool({ search: setup.webSearch, allowHosts })]
      : []),
    ...(runtime.knowledge ? [searchKnowledgeTool(knowledge)] : []),
    ...transferTools({ targets: runtime.handoffAgents, transfer }),
  ]
  const taken = new Set(builtIns.map((tool) => tool.name))
  const custom = setup.functions
    .filter((fn) => !taken.has(fn.name))
    .map((fn) => customFunctionTool({ fn, allowHosts }))
  return [...builtIns, ...custom]
}
