import { invokeFunction, nameTransferTools, WEB_SEARCH_TOOL } from '@parley/platform'
import type { VersionFunction } from '@parley/shared'
import type { AgentRow } from '../agents/index.ts'
import * as agentStore from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import { invocableOf, listEnabledFunctions, listVersionedFunctions } from '../functions/index.ts'
import { inSpan } from '../tracing/index.ts'
import type { LlmTool, ToolCall } from './llm.ts'
import { OPT_OUT_TOOL, OPT_OUT_TOOL_NAME } from './opt-out.ts'
import { searchWeb } from './web-search.ts'

/** What the reply loop does with a call the model made. */
export type ToolAction =
  | { kind: 'function'; name: string; run: (args: unknown) => Promise<string> }
  | { kind: 'end_call'; name: string }
  | { kind: 'handoff'; name: string; target: AgentRow }
  /** opt_out: lists the visitor's number (chat/opt-out.ts) and ends the chat with a confirmation. */
  | { kind: 'opt_out'; name: string; agent: AgentRow }

export type Toolset = { tools: LlmTool[]; actionFor: (call: ToolCall) => ToolAction | undefined }

const END_CALL_TOOL: LlmTool = {
  type: 'function',
  function: {
    name: 'end_call',
    description: 'End the conversation when the user says goodbye or asks to stop. Say goodbye first.',
    parameters: { type: 'object', properties: {} },
  },
}

/** One transfer tool per handoff target (nameTransferTools: unique names within 64 characters). */
const handoffTools = (targets: AgentRow[]) =>
  nameTransferTools(targets).map(({ name, description, target }) => {
    const tool: LlmTool = {
      type: 'function',
      function: { name, description, parameters: { type: 'object', properties: {} } },
    }
    return { name, tool, target }
  })

/**
 * The tools an agent offers: its enabled custom functions, end_call when enabled, a transfer tool
 * per handoff target, opt_out when enabled, and web_search when enabled and a search provider is configured (SEARCH_URL;
 * without one it is never offered, and the catalogue lists it as unavailable). With
 * functionCallingEnabled false only the transfers remain, as in a voice call's metadata.
 */
export const buildToolset = async (
  ctx: AppContext,
  agent: AgentRow,
  /** The organization the conversation belongs to (another one's, for a commercial agent). */
  servingOrganizationId: string,
  /** A version's own function definitions (agent tests on a numbered version); else the current ones. */
  versionFunctions: VersionFunction[] | null = null,
): Promise<Toolset> => {
  const callsFunctions = agent.functionCallingEnabled
  // Both reads are skipped when there is nothing to read: they sit before the first chunk.
  const [functions, handoffTargets] = await Promise.all([
    !callsFunctions
      ? []
      : versionFunctions
        ? listVersionedFunctions(ctx, agent, versionFunctions)
        : listEnabledFunctions(ctx, agent),
    agentStore.findAgentsByIds(ctx.db, {
      organizationId: agent.organizationId,
      ids: agent.handoffAgentIds,
      onlyCommercial: servingOrganizationId !== agent.organizationId,
    }),
  ])
  const targets = handoffTargets.filter(
    (target) => target.agentArchitecture === 'text' && target.id !== agent.id,
  )
  const transfers = handoffTools(targets)
  const hasEndCall = callsFunctions && agent.enabledFunctions.includes('end_call')
  const hasWebSearch =
    callsFunctions && agent.enabledFunctions.includes('web_search') && ctx.config.search !== null
  const hasOptOut = callsFunctions && agent.enabledFunctions.includes(OPT_OUT_TOOL_NAME)

  const tools: LlmTool[] = [
    ...functions.map(
      (fn): LlmTool => ({
        type: 'function',
        function: { name: fn.name, description: fn.description, parameters: fn.parameters },
      }),
    ),
    ...(hasEndCall ? [END_CALL_TOOL] : []),
    ...(hasWebSearch ? [WEB_SEARCH_TOOL] : []),
    ...(hasOptOut ? [OPT_OUT_TOOL] : []),
    ...transfers.map((transfer) => transfer.tool),
  ]

  // A method, not an arrow property: see checkpoint.ts.
  return {
    tools,
    actionFor(call: ToolCall): ToolAction | undefined {
      if (call.name === 'end_call' && hasEndCall) return { kind: 'end_call', name: call.name }
      if (call.name === OPT_OUT_TOOL_NAME && hasOptOut) return { kind: 'opt_out', name: call.name, agent }
      if (call.name === 'web_search' && hasWebSearch)
        return { kind: 'function', name: call.name, run: (args) => searchWeb(ctx, args) }
      const transfer = transfers.find((entry) => entry.name === call.name)
      if (transfer) return { kind: 'handoff', name: call.name, target: transfer.target }
      const fn = functions.find((entry) => entry.name === call.name)
      if (!fn) return undefined
      return {
        kind: 'function',
        name: fn.name,
        run: async (args) => {
          const { headersBox } = fn
          if (headersBox === null)
            return JSON.stringify({ error: `${fn.name} was deleted after this version: it cannot be called` })
          const result = await inSpan(`function ${fn.name}`, { 'parley.function.name': fn.name }, () =>
            invokeFunction({
              fn: invocableOf(ctx, { ...fn, headersBox }),
              args,
              allowHosts: ctx.config.outboundAllowHosts,
            }),
          )
          return JSON.stringify(result.ok ? result.json : { error: result.error })
        },
      }
    },
  }
}
