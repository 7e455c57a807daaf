import type { llm, voice } from '@livekit/agents'
import type { AgentRuntimeConfig, CallSetup, HandoffTarget, RuntimeTransferDestination } from '@parley/shared'
import type { WorkerApi } from '../worker-api.ts'
import { customFunctionTool } from './custom-function.ts'
import { endCallTool } from './end-call.ts'
import { optOutTool } from './opt-out.ts'
import { searchKnowledgeTool } from './search-knowledge.ts'
import { type Keypad, sendDtmfTool } from './send-dtmf.ts'
import { transferTools } from './transfer.ts'
import { transferCallTool } from './transfer-call.ts'
import { webSearchTool } from './web-search.ts'

/** What a phone call adds: the keypad (send_dtmf) and transfers to a person (transfer_call). */
export type PhoneTools = {
  /** Null on a web call: there is no phone line to press keys on. */
  keypad: Keypad | null
  transferToPerson: (destination: RuntimeTransferDestination) => Promise<{ connected: boolean; why: string }>
  leave: () => void
  /**
   * opt_out: lists the call's other party on the do-not-call list (the server knows who), then
   * says the confirmation and ends the call. Null on a web call: there is no number to list.
   */
  optOut: { list: () => Promise<unknown>; endOptedOut: (confirmation: string) => void } | null
}

/**
 * An agent's tools: end_call and web_search when it enables them (web_search only when the
 * deployment has a search endpoint), send_dtmf and opt_out when it enables them and the call is on the phone,
 * transfer_call when it has transferDestinations, search_knowledge when it has knowledge sources
 * (whether or not function calling is on: the sources are its own), a transfer per handoff target, and its custom functions with
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
  phone,
  knowledge,
}: {
  runtime: AgentRuntimeConfig
  setup: CallSetup
  hasLastMessage: boolean
  allowHosts: readonly string[]
  hangUp: () => void
  transfer: (target: HandoffTarget) => Promise<voice.Agent>
  phone: PhoneTools
  /** The worker API and call its knowledge search goes through. */
  knowledge: { api: WorkerApi; callId: string }
}): llm.ToolContextEntry[] => {
  const builtIns = [
    ...(runtime.builtInFunctions.includes('end_call') ? [endCallTool({ hasLastMessage, hangUp })] : []),
    ...(runtime.builtInFunctions.includes('web_search') && setup.webSearch
      ? [webSearchTool({ search: setup.webSearch, allowHosts })]
      : []),
    ...(runtime.builtInFunctions.includes('send_dtmf') && phone.keypad
      ? [sendDtmfTool({ keypad: phone.keypad })]
      : []),
    ...(runtime.builtInFunctions.includes('opt_out') && phone.optOut
      ? [optOutTool({ optOut: phone.optOut.list, endOptedOut: phone.optOut.endOptedOut })]
      : []),
    ...(runtime.transferDestinations.length > 0
      ? [
          transferCallTool({
            destinations: runtime.transferDestinations,
            transferToPerson: phone.transferToPerson,
            leave: phone.leave,
          }),
        ]
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
