import { llm } from '@livekit/agents'
import { invokeFunction } from '@parley/platform'
import type { WorkerFunction } from '@parley/shared'
import { asToolParameters } from './json-schema.ts'

/**
 * A customer's custom function as a tool, called exactly as text chat calls it (invokeFunction):
 * its stored method and headers, the arguments as a JSON body (the query for GET), 10 s, the
 * answer capped at 1 MiB, https to public addresses only. A failure reaches the model as a
 * ToolError it can explain to the caller; it never ends the call.
 */
export const customFunctionTool = ({
  fn,
  allowHosts,
}: {
  fn: WorkerFunction
  allowHosts: readonly string[]
}) =>
  llm.tool({
    name: fn.name,
    description: fn.description,
    parameters: asToolParameters(fn.parameters),
    execute: async (args: unknown) => {
      const result = await invokeFunction({ fn, args, allowHosts })
      if (!result.ok) throw new llm.ToolError(result.error)
      return result.json
    },
  })
