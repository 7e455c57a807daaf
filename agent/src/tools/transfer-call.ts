import { llm } from '@livekit/agents'
import type { RuntimeTransferDestination } from '@parley/shared'
import { asToolParameters } from './json-schema.ts'

export const TRANSFER_CALL_TOOL = 'transfer_call'

/**
 * transfer_call: hands the caller to a person of the agent's transferDestinations, by name (an
 * enum of them). `transferToPerson` does it (the server for a cold transfer, the framework's
 * WarmTransferTask for a warm one) and answers whether the person took the call: then the agent
 * leaves once this turn is said, and the model is not asked for another reply. Otherwise the
 * model hears why, tells the caller, and carries on.
 */
export const transferCallTool = ({
  destinations,
  transferToPerson,
  leave,
}: {
  destinations: readonly RuntimeTransferDestination[]
  transferToPerson: (destination: RuntimeTransferDestination) => Promise<{ connected: boolean; why: string }>
  /** The agent leaves the call (the person and the caller talk on). */
  leave: () => void
}) => {
  const list = destinations
    .map(
      (item) => `- ${item.name}: ${item.whenToUse}${item.mode === 'warm' ? ' (you brief them first)' : ''}`,
    )
    .join('\n')
  return llm.tool({
    name: TRANSFER_CALL_TOOL,
    description: `Transfer the call to a person. Tell the caller first that you are putting them through. Destinations:\n${list}`,
    parameters: asToolParameters({
      type: 'object',
      properties: {
        destination: {
          type: 'string',
          enum: destinations.map((item) => item.name),
          description: 'The name of the destination',
        },
      },
      required: ['destination'],
    }),
    execute: async (args: unknown, { ctx }) => {
      const name = (args as { destination?: unknown }).destination
      const destination = destinations.find((item) => item.name === name)
      if (!destination)
        throw new llm.ToolError(`There is no destination named ${String(name)}; carry on helping the caller.`)
      const outcome = await transferToPerson(destination)
      if (!outcome.connected) throw new llm.ToolError(outcome.why)
      // The person has the caller: nothing more to say; the agent leaves once this turn is done.
      ctx.speechHandle.addDoneCallback(() => leave())
      return undefined
    },
  })
}
