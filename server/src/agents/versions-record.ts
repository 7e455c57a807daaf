import { isDeepStrictEqual } from 'node:util'
import type { AgentSettings, VersionFunction } from '@parley/shared'
import type { Executor } from '../db/index.ts'
import { type AgentRow, findAgent } from './store.ts'
import { settingsDiffer } from './versions-diff.ts'
import * as versions from './versions-store.ts'

/**
 * What the agents service calls as it writes, inside its transaction: the row is always the
 * published version; the studio's edits go to the draft.
 */

/** A new agent's version 1. */
export const recordFirstVersion = (db: Executor, agent: AgentRow) =>
  versions.insertVersion(db, { agent, publishedBy: agent.userId, note: 'Created' })

/**
 * After a v1 PATCH or PUT changed the row (edit and publish in one step): a version when a
 * setting changed (`active` alone is live state, no version), and the same changes carried into
 * a pending draft so that publishing it later does not undo them.
 */
export const recordApiChange = async (
  db: Executor,
  { agent, changes, userId }: { agent: AgentRow; changes: Record<string, unknown>; userId: string | null },
) => {
  const latest = await versions.latestVersion(db, agent.id)
  const settings = versions.settingsOf(agent)
  if (!latest || settingsDiffer(latest.settings, settings))
    await versions.insertVersion(db, { agent, publishedBy: userId, note: 'Changed through the API' })
  const draft = await versions.findDraft(db, agent.id)
  if (!draft) return
  const carried = Object.fromEntries(
    Object.keys(changes)
      .filter((field) => field in settings)
      .map((field) => [field, settings[field]]),
  )
  const next = { ...draft.settings, ...carried }
  if (settingsDiffer(next, settings))
    await versions.saveDraft(db, { agentId: agent.id, settings: next, userId })
  else await versions.deleteDraft(db, agent.id)
}

/** The agent as its draft has it (the row itself when there is none); `active` stays the row's. */
export const withDraft = async (db: Executor, agent: AgentRow): Promise<AgentRow> => {
  const draft = await versions.findDraft(db, agent.id)
  if (!draft) return agent
  return { ...agent, ...(draft.settings as Partial<AgentRow>), active: agent.active }
}

/**
 * Saves the studio's edit as the draft. A draft equal to the published settings is kept too (it
 * has nothing to publish): its time says the form was saved.
 */
export const saveStudioDraft = (
  db: Executor,
  { published, edited, userId }: { published: AgentRow; edited: AgentSettings; userId: string | null },
) => versions.saveDraft(db, { agentId: published.id, settings: edited, userId })

/**
 * After a custom function of the agent was changed or deleted (its own endpoints take effect at
 * once, like a v1 edit): a version when what the agent runs on changed — a setting, or the
 * definition of a function it has enabled — so that the published version is always what sessions
 * run. A function created and not yet enabled changes nothing the agent does: no version.
 */
export const recordFunctionChange = async (
  db: Executor,
  {
    organizationId,
    agentId,
    note,
    userId,
  }: { organizationId: string; agentId: string; note: string; userId: string | null },
) => {
  const agent = await findAgent(db, { organizationId, id: agentId })
  if (!agent) return
  const latest = await versions.latestVersion(db, agentId)
  const enabled = new Set(agent.enabledCustomFunctions)
  // Compared as values (jsonb keeps its keys in an order of its own).
  const enabledOf = (functions: VersionFunction[]) =>
    functions.filter((fn) => enabled.has(fn.id)).sort((a, b) => a.id.localeCompare(b.id))
  const now = await versions.functionsOf(db, agentId)
  if (
    latest &&
    !settingsDiffer(latest.settings, versions.settingsOf(agent)) &&
    isDeepStrictEqual(enabledOf(latest.functions), enabledOf(now))
  )
    return
  await versions.insertVersion(db, { agent, publishedBy: userId, note })
}
