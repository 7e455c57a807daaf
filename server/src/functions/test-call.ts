import { callFunction, checkArguments } from '@parley/platform'
import { FUNCTION_TEST_BODY_MAX_CHARS, type FunctionTestResult } from '@parley/shared'
import type { AgentActor } from '../agents/index.ts'
import { canView, findAgentForFunctions } from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import { invocableOf } from './service.ts'
import * as store from './store.ts'

export type TestFunctionInput = {
  agentId: string
  functionId: string
  args: Record<string, unknown>
}

/**
 * One call of a stored custom function with the owner's sample arguments, through the executor
 * chat and voice use (callFunction: https to public addresses only, the 10 s time-out, the 1 MiB
 * cap, the function's own headers), and what came back. No model is asked, so no credits are
 * spent. Only owners and admins, who manage functions, may call them this way: the request carries
 * the function's stored (often secret) headers.
 */
export const testFunction = async (
  ctx: AppContext,
  actor: AgentActor,
  { agentId, functionId, args }: TestFunctionInput,
): Promise<FunctionTestResult> => {
  const agent = await findAgentForFunctions(ctx, { organizationId: actor.organizationId, agentId })
  if (!agent || !canView(actor, agent)) throw AppError.notFound('agent')
  if (actor.role !== 'owner' && actor.role !== 'admin')
    throw AppError.forbidden('Only owners and admins can test-call custom functions')
  const fn = await store.findFunction(ctx.db, { organizationId: actor.organizationId, id: functionId })
  if (!fn || fn.agentId !== agent.id) throw AppError.notFound('custom function')

  // Refused before any request, in words that name the field the owner typed them in.
  const checked = checkArguments({ schema: fn.parameters, args })
  if (!checked.ok) throw AppError.badRequest(checked.error.replace(/^Invalid arguments: /, ''))

  const startedAt = performance.now()
  const { result, response } = await callFunction({
    fn: invocableOf(ctx, fn),
    args,
    allowHosts: ctx.config.outboundAllowHosts,
  })
  const durationMs = Math.round(performance.now() - startedAt)
  const body = response?.bodyText ?? null
  return {
    ok: result.ok,
    status: response?.status ?? null,
    durationMs,
    body: body === null ? null : body.slice(0, FUNCTION_TEST_BODY_MAX_CHARS),
    truncated: body !== null && body.length > FUNCTION_TEST_BODY_MAX_CHARS,
    error: result.ok ? null : result.error,
  }
}
