import { randomBytes } from 'node:crypto'
import { validateObjectSchema, validateOutboundUrl } from '@parley/platform'
import {
  type AgentArchitecture,
  type CreateAgentV1,
  defaultVoicemailSetting,
  type ListAgentsQuery,
  type PatchAgentV1,
  type StudioUpdateAgent,
  type UpdateAgentV1,
  webhookEventNames,
} from '@parley/shared'
import { type AuditBy, recordAudit } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import { newUlid } from '../crypto/ids.ts'
import { createSecretBox } from '../crypto/secret-box.ts'
import type { Executor } from '../db/index.ts'
import { AppError } from '../http/app-error.ts'
import { pageWindow, paginationOf } from '../http/pagination.ts'
import { providersWithKeys } from '../orgs/index.ts'
import { type AgentActor, canSetMode, canUpdate, canView, type Surface } from './permissions.ts'
import {
  checkAgentSettings,
  checkRealtimeTemperature,
  clearUnusedFields,
  defaultVoiceFor,
  providerNeeds,
} from './rules.ts'
import * as store from './store.ts'
import { recordApiChange, recordFirstVersion, saveStudioDraft, withDraft } from './versions-record.ts'
import { settingsOf } from './versions-store.ts'

export const PROVIDER_KEYS_SETTINGS_PATH = '/settings/organization/provider-keys'

const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64url')}`

/**
 * Webhook URLs follow the custom functions' rules when saved: public https only (no private,
 * loopback, link-local or metadata addresses, no credentials), with OUTBOUND_ALLOW_HOSTS exempt.
 * Delivery checks the connected address again (outboundFetch), so DNS rebinding gains nothing.
 */
const checkWebhookUrl = async (ctx: AppContext, url: string | null | undefined) => {
  if (!url) return
  const verdict = await validateOutboundUrl(url, { allowHosts: ctx.config.outboundAllowHosts })
  if (!verdict.ok) throw AppError.badRequest(`webhookUrl ${verdict.message}`)
}

const ANALYSIS_SCHEMA_MAX_BYTES = 16 * 1024

/** An analysis schema is an object schema the model can fill, checked like a function's parameters. */
const checkAnalysisSchema = (schema: Record<string, unknown> | null | undefined) => {
  if (!schema) return
  if (JSON.stringify(schema).length > ANALYSIS_SCHEMA_MAX_BYTES)
    throw AppError.badRequest(`analysisSchema must be at most ${ANALYSIS_SCHEMA_MAX_BYTES} bytes of JSON`)
  const problems = validateObjectSchema(schema, 'analysisSchema')
  if (problems.length > 0) throw AppError.badRequest(problems.join('; '))
}

/** The agent if the actor may see it; another organization's or an invisible private agent is 404. */
const findVisibleAgent = async (ctx: AppContext, actor: AgentActor, agentId: string) => {
  const agent = await store.findAgent(ctx.db, { organizationId: actor.organizationId, id: agentId })
  if (!agent || !canView(actor, agent)) throw AppError.notFound('agent')
  return agent
}

/** The first id that is not a knowledge source of the organization; registered by knowledge/ (it imports agents/). */
type KnowledgeSourceCheck = (
  db: Executor,
  input: { organizationId: string; ids: string[] },
) => Promise<string | null>
let findMissingKnowledgeSource: KnowledgeSourceCheck = async () => null
export const registerKnowledgeSourceCheck = (check: KnowledgeSourceCheck) => {
  findMissingKnowledgeSource = check
}

/**
 * The ids of an agent's custom functions. The functions are the functions area's (which builds on
 * agents), so it registers this reader when loaded; until then an agent has none.
 */
export type FunctionIdsReader = (db: Executor, agentId: string) => Promise<string[]>
let listFunctionIds: FunctionIdsReader = async () => []
export const registerFunctionIdsReader = (reader: FunctionIdsReader) => {
  listFunctionIds = reader
}

const channelOf = (architecture: AgentArchitecture) => (architecture === 'text' ? 'text' : 'voice')

/**
 * Handoff targets are other agents of the same organization on the same channel: a chat goes on
 * with a text agent, a call with a voice (pipeline or realtime) agent. Enabled custom functions
 * are the agent's own.
 */
export const checkReferences = async (
  db: Executor,
  {
    organizationId,
    agentId,
    architecture,
    handoffAgentIds,
    enabledCustomFunctions,
    knowledgeSourceIds = [],
  }: {
    organizationId: string
    agentId: string
    architecture: AgentArchitecture
    handoffAgentIds: string[]
    enabledCustomFunctions: string[]
    knowledgeSourceIds?: string[]
  },
) => {
  const missingSource = await findMissingKnowledgeSource(db, { organizationId, ids: knowledgeSourceIds })
  if (missingSource !== null)
    throw AppError.badRequest(
      `knowledgeSourceIds: ${missingSource} is not a knowledge source of this organization`,
    )
  const targets = await store.findAgentsByIds(db, { organizationId, ids: handoffAgentIds })
  const channel = channelOf(architecture)
  const invalid = handoffAgentIds.find((id) => {
    const target = targets.find((t) => t.id === id)
    return id === agentId || !target || channelOf(target.agentArchitecture) !== channel
  })
  if (invalid !== undefined)
    throw AppError.badRequest(
      `handoffAgentIds: ${invalid} is not another ${channel} agent of this organization`,
    )
  if (enabledCustomFunctions.length === 0) return
  const own = await listFunctionIds(db, agentId)
  const foreign = enabledCustomFunctions.find((id) => !own.includes(id))
  if (foreign !== undefined)
    throw AppError.badRequest(`enabledCustomFunctions: ${foreign} is not a custom function of this agent`)
}

type ProviderOutcome = { missingKeys: string[]; usedDefaults: boolean }

/**
 * A model or STT whose provider the platform does not hold a key for needs the organization's own.
 * The studio falls back to the catalogue defaults and says so; v1 refuses.
 */
const resolveProviderKeys = async <
  T extends Pick<store.AgentFields, 'model' | 'stt' | 'tts' | 'realtimeProvider'>,
>(
  ctx: AppContext,
  { organizationId, agent, surface }: { organizationId: string; agent: T; surface: Surface },
): Promise<{ agent: T } & ProviderOutcome> => {
  const { keysNeeded, unsupported } = providerNeeds(agent, { catalogue: ctx.catalogue, config: ctx.config })
  // No key can help: refused on both surfaces, naming the provider.
  if (unsupported.length > 0)
    throw AppError.badRequest(`${unsupported.join('; ')}`, 'provider_not_configured')
  if (keysNeeded.length === 0) return { agent, missingKeys: [], usedDefaults: false }
  const available = await providersWithKeys(ctx, organizationId)
  const missingKeys = keysNeeded.filter((provider) => !available.has(provider))
  if (missingKeys.length === 0) return { agent, missingKeys, usedDefaults: false }
  if (surface === 'v1') {
    throw AppError.badRequest(
      `The provider ${missingKeys.join(' and ')} is not configured on this deployment: the operator sets ${missingKeys.map((p) => `${p.toUpperCase()}_API_KEY`).join(' and ')}, or the organization adds its own ${missingKeys.join(' and ')} key with PUT /api/organizations/${organizationId}/provider-keys`,
      'missing_provider_key',
    )
  }
  const providerOf = (list: { id: string; provider: string }[], id: string | null) =>
    list.find((e) => e.id === id)?.provider
  const { defaults } = ctx.catalogue
  const model = missingKeys.includes(providerOf(ctx.catalogue.models, agent.model) ?? '')
    ? defaults.model
    : agent.model
  const stt = missingKeys.includes(providerOf(ctx.catalogue.stt, agent.stt) ?? '') ? defaults.stt : agent.stt
  const fallback = { ...agent, model, stt }
  // The defaults stand in for the model and STT only: what they cannot fix is refused.
  const stillMissing = providerNeeds(fallback, {
    catalogue: ctx.catalogue,
    config: ctx.config,
  }).keysNeeded.filter((provider) => !available.has(provider))
  if (stillMissing.length > 0)
    throw AppError.badRequest(
      `The provider ${stillMissing.join(' and ')} is not configured on this deployment; add the organization's ${stillMissing.join(' and ')} key in the organization settings`,
      'missing_provider_key',
    )
  return { agent: fallback, missingKeys, usedDefaults: true }
}

export const listAgents = async (ctx: AppContext, actor: AgentActor, query: ListAgentsQuery) => {
  const { agents, total } = await store.listVisibleAgents(ctx.db, {
    organizationId: actor.organizationId,
    viewerId: actor.userId,
    seesAllPrivate: actor.role !== 'member',
    ...(query.mode ? { mode: query.mode } : {}),
    ...pageWindow(query),
  })
  return { agents, pagination: paginationOf(query, total) }
}

export const createAgent = async (ctx: AppContext, actor: AgentActor, input: CreateAgentV1, by: AuditBy) => {
  if (actor.userId === null)
    throw AppError.forbidden('This API key no longer belongs to a member; create a new key')
  if (!canSetMode(actor, input.mode))
    throw AppError.forbidden('Only owners and admins can create commercial agents')
  await checkWebhookUrl(ctx, input.webhookUrl)
  checkAnalysisSchema(input.analysisSchema)
  const voiceProvider =
    input.agentArchitecture === 'realtime' ? (input.realtimeProvider ?? null) : (input.tts ?? null)
  const fields = clearUnusedFields<store.AgentFields>({
    name: input.name,
    description: input.description ?? null,
    agentArchitecture: input.agentArchitecture,
    mode: input.mode,
    model: input.model ?? (input.agentArchitecture === 'text' ? ctx.catalogue.defaults.model : null),
    stt: input.stt ?? null,
    tts: input.tts ?? null,
    voiceId: input.voiceId ?? defaultVoiceFor(ctx.catalogue, input.agentArchitecture, voiceProvider),
    realtimeProvider: input.realtimeProvider ?? null,
    sysMsg: input.systemPrompt,
    greetingType: input.greetingType,
    greetingMessage: input.greetingMessage ?? null,
    lastMessage: input.lastMessage ?? null,
    temperature: input.temperature,
    inactivityTimeout: input.inactivityTimeout,
    functionCallingEnabled: input.functionCallingEnabled ?? (input.enabledFunctions ?? []).length > 0,
    enabledFunctions: input.enabledFunctions ?? [],
    enabledCustomFunctions: [],
    languages: [input.language],
    active: false,
    webhookUrl: input.webhookUrl ?? null,
    webhookSecretBox: null,
    handoffAgentIds: input.handoffAgentIds ?? [],
    knowledgeSourceIds: input.knowledgeSourceIds ?? [],
    postCallAnalysis: input.postCallAnalysis ?? false,
    fallbackModel: input.fallbackModel ?? null,
    analysisModel: input.analysisModel ?? null,
    fallbackStt: input.fallbackStt ?? null,
    fallbackTts: input.fallbackTts ?? null,
    webhookEvents: input.webhookEvents ?? [...webhookEventNames],
    analysisSchema: input.analysisSchema ?? null,
    transferDestinations: input.transferDestinations ?? [],
    voicemail: input.voicemail ?? defaultVoicemailSetting,
  })
  checkAgentSettings(fields, ctx.catalogue)
  checkRealtimeTemperature(fields)
  await resolveProviderKeys(ctx, { organizationId: actor.organizationId, agent: fields, surface: 'v1' })
  const id = newUlid()
  await checkReferences(ctx.db, {
    organizationId: actor.organizationId,
    agentId: id,
    architecture: fields.agentArchitecture,
    handoffAgentIds: fields.handoffAgentIds,
    enabledCustomFunctions: [],
    knowledgeSourceIds: fields.knowledgeSourceIds,
  })
  const webhookSecret = newWebhookSecret()
  const userId = actor.userId
  const agent = await ctx.db.transaction().execute(async (tx) => {
    const inserted = await store.insertAgent(tx, {
      ...fields,
      id,
      organizationId: actor.organizationId,
      userId,
      webhookSecretBox: createSecretBox(ctx.config.encryptionKey).seal(webhookSecret),
    })
    await recordFirstVersion(tx, inserted)
    await recordAudit(tx, by, {
      organizationId: actor.organizationId,
      action: 'agent.created',
      target: { kind: 'agent', id },
      details: { name: fields.name, agentArchitecture: fields.agentArchitecture },
    })
    return inserted
  })
  return { agent, webhookSecret }
}

export const getAgent = (ctx: AppContext, actor: AgentActor, agentId: string) =>
  findVisibleAgent(ctx, actor, agentId)

type AgentChanges = Partial<store.AgentFields>

/** Translates the v1 create vocabulary (systemPrompt, language) into stored fields. */
export const changesFromPatch = (
  agentId: string,
  {
    systemPrompt,
    language,
    id,
    createdBy: _createdBy,
    createdAt: _createdAt,
    updatedAt: _updatedAt,
    ...rest
  }: PatchAgentV1,
): AgentChanges => {
  if (id !== undefined && id !== agentId)
    throw AppError.badRequest('id: is read-only and must be the path id')
  return {
    ...rest,
    ...(systemPrompt !== undefined ? { sysMsg: systemPrompt } : {}),
    ...(language !== undefined ? { languages: [language] } : {}),
  }
}

/** Applies an update from either surface: visibility, rights, architecture rules, catalogue, references. */
export const updateAgent = async (
  ctx: AppContext,
  actor: AgentActor,
  {
    agentId,
    changes,
    surface,
    by,
  }: {
    agentId: string
    changes: AgentChanges | UpdateAgentV1 | StudioUpdateAgent
    surface: Surface
    by: AuditBy
  },
) => {
  const published = await findVisibleAgent(ctx, actor, agentId)
  // The studio edits the draft; v1 edits the published row and records it as a version.
  const current = surface === 'studio' ? await withDraft(ctx.db, published) : published
  const { agentArchitecture, ...requested } = changes
  if (agentArchitecture !== undefined && agentArchitecture !== current.agentArchitecture) {
    throw AppError.badRequest('agentArchitecture cannot be changed after creation')
  }
  if (!canUpdate(actor, published, surface))
    throw AppError.forbidden('You do not have permission to update this agent')
  if (requested.mode !== undefined && requested.mode !== current.mode && !canSetMode(actor, requested.mode)) {
    throw AppError.forbidden('Only owners and admins can set mode to commercial')
  }
  await checkWebhookUrl(ctx, requested.webhookUrl)
  checkAnalysisSchema(requested.analysisSchema)
  const merged = clearUnusedFields({ ...current, ...requested })
  checkAgentSettings(merged, ctx.catalogue)
  checkRealtimeTemperature(merged, current.temperature)
  await checkReferences(ctx.db, {
    organizationId: current.organizationId,
    agentId,
    architecture: merged.agentArchitecture,
    handoffAgentIds: merged.handoffAgentIds,
    enabledCustomFunctions: merged.enabledCustomFunctions,
    knowledgeSourceIds: merged.knowledgeSourceIds,
  })
  const resolved = await resolveProviderKeys(ctx, {
    organizationId: current.organizationId,
    agent: merged,
    surface,
  })
  const {
    id: _id,
    organizationId: _org,
    userId: _user,
    createdAt: _created,
    updatedAt: _updated,
    ...fields
  } = resolved.agent
  const changed = (Object.keys(fields) as Array<keyof typeof fields>).filter(
    (field) => JSON.stringify(fields[field]) !== JSON.stringify(current[field]),
  )
  const agent = await ctx.db.transaction().execute(async (tx) => {
    if (changed.length > 0)
      await recordAudit(tx, by, {
        organizationId: current.organizationId,
        action: 'agent.updated',
        target: { kind: 'agent', id: agentId },
        details: { fields: changed },
      })
    if (surface === 'v1') {
      const updated = await store.updateAgent(tx, agentId, fields)
      await recordApiChange(tx, { agent: updated, changes: requested, userId: actor.userId })
      return updated
    }
    await saveStudioDraft(tx, { published, edited: settingsOf(fields), userId: actor.userId })
    return { ...published, ...fields, active: published.active }
  })
  return { agent, missingKeys: resolved.missingKeys, usedDefaults: resolved.usedDefaults }
}

/** Removes the configuration; conversations, call logs and transcripts keep their rows for billing. */
export const deleteAgent = async (ctx: AppContext, actor: AgentActor, agentId: string, by: AuditBy) => {
  const agent = await findVisibleAgent(ctx, actor, agentId)
  if (!canUpdate(actor, agent, 'v1'))
    throw AppError.forbidden('You do not have permission to delete this agent')
  await ctx.db.transaction().execute(async (tx) => {
    await store.removeHandoffTarget(tx, { organizationId: agent.organizationId, agentId })
    await store.deleteAgent(tx, agentId)
    await recordAudit(tx, by, {
      organizationId: agent.organizationId,
      action: 'agent.deleted',
      target: { kind: 'agent', id: agentId },
      details: { name: agent.name },
    })
  })
  return { message: `Agent ${agent.name} deleted` }
}

export const rotateWebhookSecret = async (
  ctx: AppContext,
  actor: AgentActor,
  agentId: string,
  by: AuditBy,
) => {
  const agent = await findVisibleAgent(ctx, actor, agentId)
  if (!canUpdate(actor, agent, 'v1'))
    throw AppError.forbidden('You do not have permission to update this agent')
  const webhookSecret = newWebhookSecret()
  await ctx.db.transaction().execute(async (tx) => {
    await store.updateAgent(tx, agentId, {
      webhookSecretBox: createSecretBox(ctx.config.encryptionKey).seal(webhookSecret),
    })
    await recordAudit(tx, by, {
      organizationId: agent.organizationId,
      action: 'agent.webhook_secret_rotated',
      target: { kind: 'agent', id: agentId },
    })
  })
  return { webhookSecret }
}

/**
 * The agent a chat or voice session of `organizationId` opens: one of its own, or another
 * organization's commercial agent that is live (active). Anything else is 404, as an unknown id:
 * another organization's other agents are not to be found.
 */
export const findSessionAgent = async (
  ctx: AppContext,
  { organizationId, agentId }: { organizationId: string; agentId: string },
) => {
  const agent = await store.findServingAgent(ctx.db, { organizationId, id: agentId })
  if (!agent || (agent.organizationId !== organizationId && !agent.active)) throw AppError.notFound('agent')
  return agent
}

/** For the custom-functions domain: an agent of the organization, or undefined. */
export const findAgentForFunctions = (
  ctx: AppContext,
  { organizationId, agentId }: { organizationId: string; agentId: string },
) => store.findAgent(ctx.db, { organizationId, id: agentId })

export const listAgentsForFunctions = async (ctx: AppContext, organizationId: string) =>
  (
    await store.listVisibleAgents(ctx.db, {
      organizationId,
      viewerId: null,
      seesAllPrivate: true,
      offset: 0,
      limit: 10_000,
    })
  ).agents

/** Drops a deleted custom function from the agent's enabled list, inside the caller's transaction. */
export const forgetCustomFunction = (
  executor: Executor,
  { agentId, functionId }: { agentId: string; functionId: string },
) => store.removeEnabledCustomFunction(executor, { agentId, functionId })

/** The agent's webhook signing secret, decrypted; null when the agent (or its secret) is gone. */
export const readWebhookSecret = async (
  ctx: AppContext,
  { organizationId, agentId }: { organizationId: string; agentId: string },
) => {
  const agent = await store.findAgent(ctx.db, { organizationId, id: agentId })
  return agent?.webhookSecretBox
    ? createSecretBox(ctx.config.encryptionKey).open(agent.webhookSecretBox)
    : null
}
