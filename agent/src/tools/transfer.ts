import { llm, type voice } from '@livekit/agents'
import { nameTransferTools } from '@parley/platform'
import type { HandoffTarget } from '@parley/shared'

/**
 * One transfer tool per handoff target, named as text chat names them. The call's agent becomes
 * the one `transfer` builds (from the server's handoff endpoint); a transfer that fails is a
 * ToolError, and the current agent carries on.
 */
export const transferTools = ({
  targets,
  transfer,
}: {
  targets: readonly HandoffTarget[]
  transfer: (target: HandoffTarget) => Promise<voice.Agent>
}) =>
  nameTransferTools(targets).map(({ name, description, target }) =>
    llm.tool({
      name,
      description,
      execute: async () => {
        let next: voice.Agent
        try {
          next = await transfer(target)
        } catch {
          throw new llm.ToolError(
            `The transfer to ${target.name} failed; carry on helping the caller yourself.`,
          )
        }
        return llm.handoff({ agent: next })
      },
    }),
  )
