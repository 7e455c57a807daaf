import type {
  AgentDraft,
  AgentVersion,
  AgentVersionDiff,
  AgentVersionSummary,
  VersionFunction,
} from '@parley/shared'
import { type AuditBy, recordAudit } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import { pageWindow, paginationOf } from '../http/pagination.ts'
import { type AgentActor, canUpdate } from './permissions.ts'
import { checkReferences, getAgent } from './service.ts'
import * as store from './store.ts'
import { diffSnapshots, settingsDiffer } from './versions-diff.ts'
import { withDraft } from './versions-record.ts'
import * as versions from './versions-store.ts'

/**
 * Agent versions: the agents row is the published version (every session reads it); numbered
 * versions are its immutable history; the draft is what the studio edits until it is published.
 */

const toSummary = (row: versions.VersionRow, latest: number): AgentVersionSummary => ({
  number: row.number,
  publishedBy: row.publishedBy,
  note: row.note,
  createdAt: row.createdAt.toISOString(),
  published: row.number === latest,
})

const toVersion = (row: versions.VersionRow, latest: number): AgentVersion => ({
  ...toSummary(row, latest),
  settings: row.settings,
  functions: row.functions,
})

const latestOf = async (ctx: AppContext, agentId: string) => {
  const latest = await versions.latestVersion(ctx.db, agentId)
  // Every agent has version 1 from its creation or migration 0055.
  if (!latest) throw AppError.notFound('version')
  return latest
}

const versionOf = async (ctx: AppContext, agentId: string, number: number) => {
  const row = await versions.findVersion(ctx.db, agentId, number)
  if (!row) throw AppError.notFound('version')
  return row
}

/**
 * What must hold before a draft goes live, registered by agent-tests/ (it imports agents/): its
 * tests pass on the draft, when the agent asks for that. Throws to refuse.
 */
type PublishCheck = (ctx: AppContext, input: { actor: AgentActor; agent: store.AgentRow }) => Promise<void>
let checkBeforePublish: PublishCheck = async () => undefined
export const registerPublishCheck = (check: PublishCheck) => {
  checkBeforePublish = check
}

/**
 * The agent as a version has it: a published version's settings, or the draft ('draft': the
 * published row when there is none). `active` stays the row's: it is live state, not a setting.
 */
export const agentAsVersion = async (
  ctx: AppContext,
  { agent, version }: { agent: store.AgentRow; version: number | 'draft' },
): Promise<store.AgentRow> => (await versionSnapshot(ctx, { agent, version })).agent

/**
 * Everything a version runs on: its settings (knowledge sources included) and its custom
 * functions' definitions as they were published (`functions`; null for the draft, which runs on
 * the definitions there are now). Fields added to agents after the version was published keep
 * the row's values.
 */
export const versionSnapshot = async (
  ctx: AppContext,
  { agent, version }: { agent: store.AgentRow; version: number | 'draft' },
): Promise<{ agent: store.AgentRow; functions: VersionFunction[] | null }> => {
  if (version === 'draft') return { agent: await withDraft(ctx.db, agent), functions: null }
  const row = await versionOf(ctx, agent.id, version)
  return {
    agent: { ...agent, ...(row.settings as Partial<store.AgentRow>), active: agent.active },
    functions: row.functions,
  }
}

/** The settings that differ between two states of an agent, by name (for the audit log). */
const changedFields = (before: store.AgentRow, after: store.AgentRow) => {
  const [old, now] = [versions.settingsOf(before), versions.settingsOf(after)]
  return Object.keys(now)
    .filter((field) => JSON.stringify(old[field]) !== JSON.stringify(now[field]))
    .sort()
}

/** The number of the version sessions run on (the highest). */
export const publishedVersionOf = async (ctx: AppContext, agentId: string) =>
  (await latestOf(ctx, agentId)).number

const mayPublish = (actor: AgentActor, agent: store.AgentRow) => {
  if (!canUpdate(actor, agent, 'v1'))
    throw AppError.forbidden('You do not have permission to update this agent')
}

export const listAgentVersions = async (
  ctx: AppContext,
  actor: AgentActor,
  { agentId, page, limit }: { agentId: string; page: number; limit: number },
) => {
  await getAgent(ctx, actor, agentId)
  const [{ rows, total }, latest] = await Promise.all([
    versions.listVersions(ctx.db, { agentId, ...pageWindow({ page, limit }) }),
    latestOf(ctx, agentId),
  ])
  return {
    data: rows.map((row) =>
      toSummary(
        {
          number: row.number,
          publishedBy: row.published_by,
          note: row.note,
          createdAt: row.created_at,
          settings: {},
          functions: [],
        },
        latest.number,
      ),
    ),
    pagination: paginationOf({ page, limit }, total),
  }
}

export const getAgentVersion = async (
  ctx: AppContext,
  actor: AgentActor,
  agentId: string,
  number: number,
) => {
  await getAgent(ctx, actor, agentId)
  const [row, latest] = await Promise.all([versionOf(ctx, agentId, number), latestOf(ctx, agentId)])
  return toVersion(row, latest.number)
}

/** Version `number` against `against` (default: the version before it; version 1 against itself). */
export const diffAgentVersions = async (
  ctx: AppContext,
  actor: AgentActor,
  { agentId, number, against }: { agentId: string; number: number; against?: number | undefined },
): Promise<AgentVersionDiff> => {
  await getAgent(ctx, actor, agentId)
  const older = against ?? Math.max(1, number - 1)
  const [after, before] = await Promise.all([versionOf(ctx, agentId, number), versionOf(ctx, agentId, older)])
  return { from: older, to: number, changes: diffSnapshots(before, after) }
}

const draftOf = async (ctx: AppContext, agent: store.AgentRow): Promise<AgentDraft> => {
  const [latest, draft] = await Promise.all([latestOf(ctx, agent.id), versions.findDraft(ctx.db, agent.id)])
  const published = versions.settingsOf(agent)
  const settings = draft ? { ...draft.settings, active: agent.active } : published
  return {
    basedOn: latest.number,
    settings,
    changes: diffSnapshots({ settings: published }, { settings }),
    updatedAt: draft ? draft.updatedAt.toISOString() : null,
  }
}

export const getAgentDraft = async (ctx: AppContext, actor: AgentActor, agentId: string) =>
  draftOf(ctx, await getAgent(ctx, actor, agentId))

/**
 * Makes the draft live: the row takes the draft's settings (its `active` stays: live state) and
 * is recorded as the next version with its publisher and note, in one transaction. Nothing to
 * publish is a 409. References (handoff agents, custom functions) deleted since the draft was
 * saved are dropped; the rest are checked again.
 */
export const publishAgent = async (
  ctx: AppContext,
  actor: AgentActor,
  { agentId, note, by }: { agentId: string; note: string; by: AuditBy },
): Promise<AgentVersion> => {
  const agent = await getAgent(ctx, actor, agentId)
  mayPublish(actor, agent)
  // Nothing to publish is refused before the tests would run (and cost) for nothing.
  const pending = await versions.findDraft(ctx.db, agentId)
  if (!pending || !settingsDiffer(versions.settingsOf(agent), pending.settings))
    throw AppError.conflict('The draft has no changes to publish')
  await checkBeforePublish(ctx, { actor, agent })
  const version = await ctx.db.transaction().execute(async (tx) => {
    const draft = await versions.findDraft(tx, agentId)
    if (!draft || !settingsDiffer(versions.settingsOf(agent), draft.settings))
      throw AppError.conflict('The draft has no changes to publish')
    const { active: _active, ...drafted } = draft.settings as Partial<store.AgentFields>
    // A function or handoff agent deleted since the draft was saved is gone: it is dropped.
    const [functions, targets] = await Promise.all([
      versions.functionsOf(tx, agentId),
      store.findAgentsByIds(tx, { organizationId: agent.organizationId, ids: drafted.handoffAgentIds ?? [] }),
    ])
    const settings = {
      ...drafted,
      enabledCustomFunctions: (drafted.enabledCustomFunctions ?? agent.enabledCustomFunctions).filter((id) =>
        functions.some((fn) => fn.id === id),
      ),
      handoffAgentIds: (drafted.handoffAgentIds ?? agent.handoffAgentIds).filter(
        (id) => drafted.handoffAgentIds === undefined || targets.some((target) => target.id === id),
      ),
    }
    const next = { ...agent, ...settings }
    await checkReferences(tx, {
      organizationId: agent.organizationId,
      agentId,
      architecture: next.agentArchitecture,
      handoffAgentIds: next.handoffAgentIds,
      enabledCustomFunctions: next.enabledCustomFunctions,
    })
    const updated = await store.updateAgent(tx, agentId, settings)
    await versions.deleteDraft(tx, agentId)
    const published = await versions.insertVersion(tx, { agent: updated, publishedBy: actor.userId, note })
    await recordAudit(tx, by, {
      organizationId: agent.organizationId,
      action: 'agent.published',
      target: { kind: 'agent', id: agentId },
      details: { version: published.number, fields: changedFields(agent, updated) },
    })
    return published
  })
  return toVersion(version, version.number)
}

/** The draft becomes version `number`'s settings (nothing goes live until it is published). */
export const restoreAgentVersion = async (
  ctx: AppContext,
  actor: AgentActor,
  { agentId, number, by }: { agentId: string; number: number; by: AuditBy },
): Promise<AgentDraft> => {
  const agent = await getAgent(ctx, actor, agentId)
  mayPublish(actor, agent)
  const row = await versionOf(ctx, agentId, number)
  const settings = { ...row.settings, active: agent.active }
  await ctx.db.transaction().execute(async (tx) => {
    if (settingsDiffer(versions.settingsOf(agent), settings))
      await versions.saveDraft(tx, { agentId, settings, userId: actor.userId })
    else await versions.deleteDraft(tx, agentId)
    await recordAudit(tx, by, {
      organizationId: agent.organizationId,
      action: 'agent.version_restored',
      target: { kind: 'agent', id: agentId },
      details: { version: number },
    })
  })
  return draftOf(ctx, agent)
}
