import { type InvokableFunction, validateFunctionParameters, validateOutboundUrl } from '@parley/platform'
import type { CreateFunction, CustomFunction, UpdateFunction, VersionFunction } from '@parley/shared'
import { MAX_FUNCTIONS_PER_AGENT } from '@parley/shared'
import type { AgentActor } from '../agents/index.ts'
import {
  canView,
  findAgentForFunctions,
  forgetCustomFunction,
  listAgentsForFunctions,
  recordFunctionChange,
} from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import { newUlid } from '../crypto/ids.ts'
import { createSecretBox } from '../crypto/secret-box.ts'
import { AppError } from '../http/app-error.ts'
import * as store from './store.ts'

const isManager = (actor: AgentActor) => actor.role === 'owner' || actor.role === 'admin'

/** Header values may be customer secrets: they are stored encrypted and shown by their last 4 characters. */
const maskValue = (value: string) => `${'•'.repeat(8)}${value.length > 8 ? value.slice(-4) : ''}`

/** A function's custom headers, opened from their sealed form (only to call it, or masked to show). */
export const openHeaders = (ctx: AppContext, fn: Pick<store.CustomFunctionRow, 'headersBox'>) =>
  JSON.parse(createSecretBox(ctx.config.encryptionKey).open(fn.headersBox)) as Record<string, string>

/** A stored function as the executor calls it: endpoint, method, parameters and its opened headers. */
export const invocableOf = (
  ctx: AppContext,
  fn: Pick<store.CustomFunctionRow, 'endpoint' | 'method' | 'parameters' | 'headersBox'>,
): InvokableFunction => ({
  endpoint: fn.endpoint,
  method: fn.method,
  headers: openHeaders(ctx, fn),
  parameters: fn.parameters,
})

/** The custom functions an agent has enabled, in creation order; no read when it has none. */
export const listEnabledFunctions = async (
  ctx: AppContext,
  agent: { id: string; enabledCustomFunctions: string[] },
) => {
  if (agent.enabledCustomFunctions.length === 0) return []
  const enabled = new Set(agent.enabledCustomFunctions)
  return (await store.listFunctionsOfAgents(ctx.db, [agent.id])).filter((fn) => enabled.has(fn.id))
}

/**
 * The functions an agent's version has enabled, as that version defined them (`snapshot`: its
 * published definitions). Headers are secrets and never versioned: each takes the function's
 * headers now, and `headersBox` is null for a function deleted since (it cannot be called for real).
 */
export const listVersionedFunctions = async (
  ctx: AppContext,
  agent: { id: string; enabledCustomFunctions: string[] },
  snapshot: VersionFunction[],
) => {
  if (agent.enabledCustomFunctions.length === 0) return []
  const enabled = new Set(agent.enabledCustomFunctions)
  const current = new Map(
    (await store.listFunctionsOfAgents(ctx.db, [agent.id])).map((fn) => [fn.id, fn.headersBox]),
  )
  return snapshot
    .filter((fn) => enabled.has(fn.id))
    .map((fn) => ({
      ...fn,
      method: fn.method as store.FunctionMethod,
      headersBox: current.get(fn.id) ?? null,
    }))
}

const present = (ctx: AppContext, fn: store.CustomFunctionRow): CustomFunction => {
  const headers = openHeaders(ctx, fn)
  return {
    id: fn.id,
    name: fn.name,
    label: fn.label,
    description: fn.description,
    endpoint: fn.endpoint,
    method: fn.method,
    headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, maskValue(value)])),
    parameters: fn.parameters,
    agentId: fn.agentId,
    createdAt: fn.createdAt.toISOString(),
    updatedAt: fn.updatedAt.toISOString(),
  }
}

/** Members see the functions of agents they created; owners and admins see all of the organization's. */
const mayViewFunctionsOf = (actor: AgentActor, agent: { userId: string; mode: string }) =>
  isManager(actor) || agent.userId === actor.userId

/** The agent whose functions are managed; only owners and admins manage (commercial agents included). */
const findManageableAgent = async (ctx: AppContext, actor: AgentActor, agentId: string) => {
  const agent = await findAgentForFunctions(ctx, { organizationId: actor.organizationId, agentId })
  if (!agent || !canView(actor, agent)) throw AppError.notFound('agent')
  if (!isManager(actor))
    throw AppError.forbidden('Only owners and admins can create, edit or delete custom functions')
  return agent
}

const checkEndpoint = async (ctx: AppContext, endpoint: string) => {
  const verdict = await validateOutboundUrl(endpoint, { allowHosts: ctx.config.outboundAllowHosts })
  if (!verdict.ok) throw AppError.badRequest(`endpoint: ${verdict.message}`)
}

const checkParameters = (parameters: Record<string, unknown>) => {
  const problems = validateFunctionParameters(parameters)
  if (problems.length > 0) throw AppError.badRequest(`parameters: ${problems.join('; ')}`)
}

const sealHeaders = (ctx: AppContext, headers: Record<string, string>) =>
  createSecretBox(ctx.config.encryptionKey).seal(JSON.stringify(headers))

export const createFunction = async (
  ctx: AppContext,
  actor: AgentActor,
  { agentId, input }: { agentId: string; input: CreateFunction },
) => {
  const agent = await findManageableAgent(ctx, actor, agentId)
  checkParameters(input.parameters)
  await checkEndpoint(ctx, input.endpoint)
  if ((await store.listFunctionIds(ctx.db, agent.id)).length >= MAX_FUNCTIONS_PER_AGENT) {
    throw AppError.badRequest(`An agent can have at most ${MAX_FUNCTIONS_PER_AGENT} custom functions`)
  }
  const { headers, ...fields } = input
  const created = await store.insertFunction(ctx.db, {
    ...fields,
    id: newUlid(),
    organizationId: actor.organizationId,
    agentId: agent.id,
    headersBox: sealHeaders(ctx, headers),
  })
  if (!created) throw AppError.conflict(`This agent already has a function named ${input.name}`)
  return present(ctx, created)
}

export const updateFunction = async (
  ctx: AppContext,
  actor: AgentActor,
  { agentId, input }: { agentId: string; input: UpdateFunction },
) => {
  const agent = await findManageableAgent(ctx, actor, agentId)
  const { id, headers, ...fields } = input
  const existing = await store.findFunction(ctx.db, { organizationId: actor.organizationId, id })
  if (!existing || existing.agentId !== agent.id) throw AppError.notFound('custom function')
  if (fields.parameters !== undefined) checkParameters(fields.parameters)
  if (fields.endpoint !== undefined) await checkEndpoint(ctx, fields.endpoint)
  // A change to an enabled function is what sessions run at once: recorded as a version with it.
  const updated = await ctx.db.transaction().execute(async (tx) => {
    const row = await store.updateFunction(tx, {
      id,
      fields: { ...fields, ...(headers !== undefined ? { headersBox: sealHeaders(ctx, headers) } : {}) },
    })
    if (!row) throw AppError.conflict(`This agent already has a function named ${fields.name}`)
    await recordFunctionChange(tx, {
      organizationId: agent.organizationId,
      agentId: agent.id,
      note: `Function ${row.name} changed`,
      userId: actor.userId,
    })
    return row
  })
  return present(ctx, updated)
}

/** Deletes the function and drops it from the agent's enabledCustomFunctions in one transaction. */
export const deleteFunction = async (
  ctx: AppContext,
  actor: AgentActor,
  { agentId, functionId }: { agentId: string; functionId: string },
) => {
  const agent = await findManageableAgent(ctx, actor, agentId)
  const existing = await store.findFunction(ctx.db, { organizationId: actor.organizationId, id: functionId })
  if (!existing || existing.agentId !== agent.id) throw AppError.notFound('custom function')
  await ctx.db.transaction().execute(async (tx) => {
    await forgetCustomFunction(tx, { agentId: agent.id, functionId })
    await store.deleteFunction(tx, functionId)
    await recordFunctionChange(tx, {
      organizationId: agent.organizationId,
      agentId: agent.id,
      note: `Function ${existing.name} deleted`,
      userId: actor.userId,
    })
  })
  return { success: true as const }
}

const brief = (agent: { id: string; name: string; organizationId: string }) => ({
  id: agent.id,
  name: agent.name,
  organizationId: agent.organizationId,
})

/** The three listing shapes of the spec: by agent (full), all of the user's agents, the organization's with role. */
export const listFunctions = async (
  ctx: AppContext,
  actor: AgentActor,
  query: { agentId?: string | undefined; organizationId?: string | undefined },
) => {
  if (query.agentId) {
    const agent = await findAgentForFunctions(ctx, {
      organizationId: actor.organizationId,
      agentId: query.agentId,
    })
    if (!agent || !canView(actor, agent) || !mayViewFunctionsOf(actor, agent))
      throw AppError.notFound('agent')
    return {
      functions: (await store.listFunctionsOfAgents(ctx.db, [agent.id])).map((fn) => present(ctx, fn)),
    }
  }
  if (query.organizationId !== undefined && query.organizationId !== actor.organizationId)
    throw AppError.notFound('organization')
  const agents = (await listAgentsForFunctions(ctx, actor.organizationId)).filter(
    (agent) =>
      canView(actor, agent) &&
      (query.organizationId ? mayViewFunctionsOf(actor, agent) : agent.userId === actor.userId),
  )
  const byId = new Map(agents.map((agent) => [agent.id, agent]))
  const functions = await store.listFunctionsOfAgents(ctx.db, [...byId.keys()])
  const agentOf = (fn: store.CustomFunctionRow) =>
    brief(byId.get(fn.agentId) as { id: string; name: string; organizationId: string })
  if (query.organizationId) {
    return {
      functions: functions.map((fn) => ({ id: fn.id, name: fn.name, agent: agentOf(fn) })),
      role: actor.role,
    }
  }
  return {
    functions: functions.map((fn) => ({
      id: fn.id,
      name: fn.name,
      label: fn.label,
      endpoint: fn.endpoint,
      agent: agentOf(fn),
    })),
  }
}
