import {
  type AgentArchitecture,
  type AgentMode,
  defaultVoicemailSetting,
  type TransferDestination,
  type VoicemailSetting,
  type WebhookEventName,
  webhookEventNames,
} from '@parley/shared'
import { type Selectable, sql } from 'kysely'
import type { Database, Executor } from '../db/index.ts'
import { countRows, newestFirstPage } from '../db/page-store.ts'

export type AgentRow = {
  id: string
  organizationId: string
  userId: string
  name: string
  description: string | null
  agentArchitecture: AgentArchitecture
  mode: AgentMode
  model: string | null
  stt: string | null
  tts: string | null
  voiceId: string | null
  realtimeProvider: 'openai' | 'gemini' | null
  sysMsg: string | null
  greetingType: 'agentFirst' | 'userFirst'
  greetingMessage: string | null
  lastMessage: string | null
  temperature: number
  inactivityTimeout: number
  functionCallingEnabled: boolean
  enabledFunctions: string[]
  enabledCustomFunctions: string[]
  languages: string[]
  active: boolean
  webhookUrl: string | null
  webhookSecretBox: string | null
  handoffAgentIds: string[]
  /** Knowledge sources each reply retrieves passages from. */
  knowledgeSourceIds: string[]
  postCallAnalysis: boolean
  /** Tried once when the model's provider fails before the first chunk. */
  fallbackModel: string | null
  /** Realtime agents: the text model of post-call analysis (null: the catalogue's default). */
  analysisModel: string | null
  /** Pipeline agents: the STT and TTS the worker turns to when the agent's own fail. */
  fallbackStt: string | null
  fallbackTts: string | null
  /** The webhook events the endpoint receives. */
  webhookEvents: WebhookEventName[]
  /** JSON Schema of the structured fields post-call analysis fills. */
  analysisSchema: Record<string, unknown> | null
  /** People a call may be transferred to (transfer_call; voice agents). */
  transferDestinations: TransferDestination[]
  /** Outbound calls: what to do on a voicemail box or a phone menu. */
  voicemail: VoicemailSetting
  createdAt: Date
  updatedAt: Date
}

/** The fields a create or an update may set. */
export type AgentFields = Omit<AgentRow, 'id' | 'organizationId' | 'userId' | 'createdAt' | 'updatedAt'>

const toRow = (row: Selectable<Database['agents']>): AgentRow => ({
  id: row.id,
  organizationId: row.organization_id,
  userId: row.user_id,
  name: row.name,
  description: row.description,
  agentArchitecture: row.agent_architecture,
  mode: row.mode,
  model: row.model,
  stt: row.stt,
  tts: row.tts,
  voiceId: row.voice_id,
  realtimeProvider: row.realtime_provider,
  sysMsg: row.sys_msg,
  greetingType: row.greeting_type,
  greetingMessage: row.greeting_message,
  lastMessage: row.last_message,
  temperature: row.temperature,
  inactivityTimeout: row.inactivity_timeout,
  functionCallingEnabled: row.function_calling_enabled,
  enabledFunctions: row.enabled_functions,
  enabledCustomFunctions: row.enabled_custom_functions,
  languages: row.languages,
  active: row.active,
  webhookUrl: row.webhook_url,
  webhookSecretBox: row.webhook_secret_box,
  handoffAgentIds: row.handoff_agent_ids,
  knowledgeSourceIds: row.knowledge_source_ids ?? [],
  postCallAnalysis: row.post_call_analysis,
  fallbackModel: row.fallback_model ?? null,
  analysisModel: row.analysis_model ?? null,
  fallbackStt: row.fallback_stt ?? null,
  fallbackTts: row.fallback_tts ?? null,
  webhookEvents: (row.webhook_events ?? [...webhookEventNames]) as WebhookEventName[],
  analysisSchema: row.analysis_schema ?? null,
  transferDestinations: row.transfer_destinations ?? [],
  voicemail: row.voicemail ?? defaultVoicemailSetting,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

/**
 * An agent read as JSON inside another statement (the chat path reads it with its conversation in
 * one round trip): JSON carries timestamps as strings, so they are revived first.
 */
export const agentFromJson = (json: Record<string, unknown>): AgentRow =>
  toRow({
    ...(json as unknown as Selectable<Database['agents']>),
    created_at: new Date(json.created_at as string),
    updated_at: new Date(json.updated_at as string),
  })

const toColumns = (fields: Partial<AgentFields>) => {
  const json = (value: unknown[] | undefined) => (value === undefined ? undefined : JSON.stringify(value))
  const columns = {
    name: fields.name,
    description: fields.description,
    agent_architecture: fields.agentArchitecture,
    mode: fields.mode,
    model: fields.model,
    stt: fields.stt,
    tts: fields.tts,
    voice_id: fields.voiceId,
    realtime_provider: fields.realtimeProvider,
    sys_msg: fields.sysMsg,
    greeting_type: fields.greetingType,
    greeting_message: fields.greetingMessage,
    last_message: fields.lastMessage,
    temperature: fields.temperature,
    inactivity_timeout: fields.inactivityTimeout,
    function_calling_enabled: fields.functionCallingEnabled,
    enabled_functions: json(fields.enabledFunctions),
    enabled_custom_functions: json(fields.enabledCustomFunctions),
    languages: json(fields.languages),
    active: fields.active,
    webhook_url: fields.webhookUrl,
    webhook_secret_box: fields.webhookSecretBox,
    handoff_agent_ids: json(fields.handoffAgentIds),
    knowledge_source_ids: json(fields.knowledgeSourceIds),
    post_call_analysis: fields.postCallAnalysis,
    fallback_model: fields.fallbackModel,
    analysis_model: fields.analysisModel,
    fallback_stt: fields.fallbackStt,
    fallback_tts: fields.fallbackTts,
    webhook_events: json(fields.webhookEvents),
    analysis_schema:
      fields.analysisSchema === undefined
        ? undefined
        : fields.analysisSchema === null
          ? null
          : JSON.stringify(fields.analysisSchema),
    transfer_destinations: json(fields.transferDestinations),
    voicemail: fields.voicemail === undefined ? undefined : JSON.stringify(fields.voicemail),
  }
  return Object.fromEntries(Object.entries(columns).filter(([, value]) => value !== undefined))
}

export const insertAgent = async (
  db: Executor,
  agent: AgentFields & { id: string; organizationId: string; userId: string },
): Promise<AgentRow> => {
  const row = await db
    .insertInto('agents')
    .values({
      id: agent.id,
      organization_id: agent.organizationId,
      user_id: agent.userId,
      ...(toColumns(agent) as ReturnType<typeof toColumns> & { name: string }),
    } as never)
    .returningAll()
    .executeTakeFirstOrThrow()
  return toRow(row)
}

export const findAgent = async (
  db: Executor,
  { organizationId, id }: { organizationId: string; id: string },
) => {
  const row = await db
    .selectFrom('agents')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst()
  return row ? toRow(row) : undefined
}

/**
 * The agent that may answer an organization's chat or call: one of its own, or any organization's
 * commercial agent (globally accessible; billed to the organization it serves). Whether it is
 * live (active) is the caller's check.
 */
export const findServingAgent = async (
  db: Executor,
  { organizationId, id }: { organizationId: string; id: string },
) => {
  const row = await db
    .selectFrom('agents')
    .selectAll()
    .where('id', '=', id)
    .where((eb) => eb.or([eb('organization_id', '=', organizationId), eb('mode', '=', 'commercial')]))
    .executeTakeFirst()
  return row ? toRow(row) : undefined
}

/**
 * The organization's agents among `ids`. `onlyCommercial`: a commercial agent serving another
 * organization hands its conversations only to its owner's commercial agents, never to ones that
 * organization cannot use.
 */
export const findAgentsByIds = async (
  db: Executor,
  {
    organizationId,
    ids,
    onlyCommercial = false,
  }: { organizationId: string; ids: string[]; onlyCommercial?: boolean },
) => {
  if (ids.length === 0) return []
  let query = db
    .selectFrom('agents')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', 'in', ids)
  if (onlyCommercial) query = query.where('mode', '=', 'commercial')
  const rows = await query.execute()
  return rows.map(toRow)
}

/** Agents the viewer may see: public and commercial ones, and private ones they made or may oversee. */
export const listVisibleAgents = async (
  db: Executor,
  query: {
    organizationId: string
    viewerId: string | null
    seesAllPrivate: boolean
    mode?: AgentMode
    offset: number
    limit: number
  },
) => {
  // mode=commercial lists every organization's live commercial agents too: they are globally
  // accessible (the list shows only id, name, mode, architecture, active and creation time).
  const base = db
    .selectFrom('agents')
    .where((eb) =>
      query.mode === 'commercial'
        ? eb.or([eb('organization_id', '=', query.organizationId), eb('active', '=', true)])
        : eb('organization_id', '=', query.organizationId),
    )
    .$if(query.mode !== undefined, (qb) => qb.where('mode', '=', query.mode as AgentMode))
    .$if(!query.seesAllPrivate, (qb) =>
      qb.where((eb) => eb.or([eb('mode', '<>', 'private'), eb('user_id', '=', query.viewerId ?? '')])),
    )
  const [rows, total] = await Promise.all([
    base.selectAll().$call(newestFirstPage(query)).execute(),
    countRows(base),
  ])
  return { agents: rows.map(toRow), total }
}

export const updateAgent = async (
  db: Executor,
  id: string,
  fields: Partial<AgentFields>,
): Promise<AgentRow> => {
  const row = await db
    .updateTable('agents')
    .set({ ...toColumns(fields), updated_at: sql`now()` } as never)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow()
  return toRow(row)
}

export const deleteAgent = async (db: Executor, id: string) => {
  await db.deleteFrom('agents').where('id', '=', id).execute()
}

/** Removes the agent from every other agent's handoff list in the organization. */
export const removeHandoffTarget = async (
  db: Executor,
  { organizationId, agentId }: { organizationId: string; agentId: string },
) => {
  await db
    .updateTable('agents')
    .set({ handoff_agent_ids: sql`handoff_agent_ids - ${agentId}` } as never)
    .where('organization_id', '=', organizationId)
    .where(sql<boolean>`handoff_agent_ids ? ${agentId}`)
    .execute()
}

export const agentExists = async (db: Executor, id: string) =>
  (await db.selectFrom('agents').select('id').where('id', '=', id).executeTakeFirst()) !== undefined

export const removeEnabledCustomFunction = async (
  db: Executor,
  { agentId, functionId }: { agentId: string; functionId: string },
) => {
  await db
    .updateTable('agents')
    .set({
      enabled_custom_functions: sql`enabled_custom_functions - ${functionId}`,
      updated_at: sql`now()`,
    } as never)
    .where('id', '=', agentId)
    .execute()
}
