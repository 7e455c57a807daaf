import type { AgentSettings, VersionFunction } from '@parley/shared'
import { sql } from 'kysely'
import type { Executor } from '../db/index.ts'
import type { AgentFields, AgentRow } from './store.ts'

/**
 * An agent's settings: every field of its row but identity, ownership, times and the sealed
 * webhook secret (a restore never brings back a rotated secret). Taken generically, so a field
 * added to the row later is versioned without a change here.
 */
export const settingsOf = (agent: AgentRow | AgentFields): AgentSettings => {
  const {
    id: _id,
    organizationId: _org,
    userId: _user,
    createdAt: _created,
    updatedAt: _updated,
    webhookSecretBox: _secret,
    ...settings
  } = agent as AgentRow
  return JSON.parse(JSON.stringify(settings)) as AgentSettings
}

export type VersionRow = {
  number: number
  settings: AgentSettings
  functions: VersionFunction[]
  publishedBy: string | null
  note: string
  createdAt: Date
}

const toVersion = (row: {
  number: number
  settings: AgentSettings
  functions: VersionFunction[]
  published_by: string | null
  note: string
  created_at: Date
}): VersionRow => ({
  number: row.number,
  settings: row.settings,
  functions: row.functions,
  publishedBy: row.published_by,
  note: row.note,
  createdAt: row.created_at,
})

/** The definitions of the agent's custom functions now (headers are secrets: never copied). */
export const functionsOf = async (db: Executor, agentId: string): Promise<VersionFunction[]> => {
  const rows = await db
    .selectFrom('custom_functions')
    .select(['id', 'name', 'label', 'description', 'endpoint', 'method', 'parameters'])
    .where('agent_id', '=', agentId)
    .orderBy('name')
    .execute()
  return rows.map((row) => ({ ...row, parameters: row.parameters as Record<string, unknown> }))
}

/**
 * Records the agent's row as its next version, in the caller's transaction. The agent row is
 * locked first, so two publishes of one agent take consecutive numbers.
 */
export const insertVersion = async (
  db: Executor,
  { agent, publishedBy, note }: { agent: AgentRow; publishedBy: string | null; note: string },
): Promise<VersionRow> => {
  await db.selectFrom('agents').select('id').where('id', '=', agent.id).forUpdate().executeTakeFirst()
  const functions = await functionsOf(db, agent.id)
  const row = await db
    .insertInto('agent_versions')
    .values({
      agent_id: agent.id,
      number: sql<number>`coalesce((select max(number) from agent_versions where agent_id = ${agent.id}), 0) + 1`,
      settings: JSON.stringify(settingsOf(agent)),
      functions: JSON.stringify(functions),
      published_by: publishedBy,
      note,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
  return toVersion(row as never)
}

export const latestVersion = async (db: Executor, agentId: string): Promise<VersionRow | undefined> => {
  const row = await db
    .selectFrom('agent_versions')
    .selectAll()
    .where('agent_id', '=', agentId)
    .orderBy('number', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row ? toVersion(row as never) : undefined
}

export const findVersion = async (db: Executor, agentId: string, number: number) => {
  const row = await db
    .selectFrom('agent_versions')
    .selectAll()
    .where('agent_id', '=', agentId)
    .where('number', '=', number)
    .executeTakeFirst()
  return row ? toVersion(row as never) : undefined
}

export const listVersions = async (
  db: Executor,
  { agentId, offset, limit }: { agentId: string; offset: number; limit: number },
) => {
  const [rows, total] = await Promise.all([
    db
      .selectFrom('agent_versions')
      .select(['number', 'published_by', 'note', 'created_at'])
      .where('agent_id', '=', agentId)
      .orderBy('number', 'desc')
      .offset(offset)
      .limit(limit)
      .execute(),
    db
      .selectFrom('agent_versions')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('agent_id', '=', agentId)
      .executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(total.n) }
}

export type DraftRow = { settings: AgentSettings; updatedAt: Date }

export const findDraft = async (db: Executor, agentId: string): Promise<DraftRow | undefined> => {
  const row = await db
    .selectFrom('agent_drafts')
    .select(['settings', 'updated_at'])
    .where('agent_id', '=', agentId)
    .executeTakeFirst()
  return row ? { settings: row.settings as AgentSettings, updatedAt: row.updated_at } : undefined
}

export const saveDraft = async (
  db: Executor,
  { agentId, settings, userId }: { agentId: string; settings: AgentSettings; userId: string | null },
) => {
  await db
    .insertInto('agent_drafts')
    .values({ agent_id: agentId, settings: JSON.stringify(settings), updated_by: userId })
    .onConflict((oc) =>
      oc.column('agent_id').doUpdateSet({
        settings: JSON.stringify(settings),
        updated_by: userId,
        updated_at: sql`now()`,
      }),
    )
    .execute()
}

export const deleteDraft = async (db: Executor, agentId: string) => {
  await db.deleteFrom('agent_drafts').where('agent_id', '=', agentId).execute()
}
