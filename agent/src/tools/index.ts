import type { llm, voice } from '@livekit/agents'
import type { AgentRuntimeConfig, CallSetup, HandoffTarget, RuntimeTransferDestination } from '@parley/shared'
import { customFunctionTool } from './custom-function.ts'
import { endCallTool } from './end-call.ts'
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
}

/**
 * An agent's tools: end_call and web_search when it enables them (web_search only when the
 * deployment has a search endpoint), send_dtmf when it enables it and the call is on the phone,
 * transfer_call when it has transferDestinations, a transfer per handoff target, and its custom functions with
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
}: {
  runtime: AgentRuntimeConfig
  setup: CallSetup
  hasLastMessage: boolean
  allowHosts: readonly string[]
  hangUp: () => void
  transfer: (target: HandoffTarget) => Promise<voice.Agent>
  phone: PhoneTools
}): llm.ToolContextEntry[] => {
  const builtIns = [
    ...(runtime.builtInFunctions.includes('end_call') ? [endCallTool({ hasLastMessage, hangUp })] : []),
    ...(runtime.builtInFunctions.includes('web_search') && setup.webSearch
      ? [webSearchTool({ search: setup.webSearch, allowHosts })]
      : []),
    ...(runtime.builtInFunctions.includes('send_dtmf') && phone.keypad
      ? [sendDtmfTool({ keypad: phone.keypad })]
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
    ...transferTools({ targets: runtime.handoffAgents, transfer }),
  ]
  const taken = new Set(builtIns.map((tool) => tool.name))
  const custom = setup.functions
    .filter((fn) => !taken.has(fn.name))
    .map((fn) => customFunctionTool({ fn, allowHosts }))
  return [...builtIns, ...custom]
}
