import { INBOUND_ROOM_PREFIX, type InboundJobMetadata, type PhoneNumberInbound } from '@parley/shared'
import type { AppContext } from '../context.ts'
import type { SipDispatchRule, SipInboundTrunk, SipInboundWanted } from '../providers/livekit.ts'
import * as store from './store.ts'

/**
 * A number that answers calls has, in LiveKit, a SIP inbound trunk for the number and a dispatch
 * rule on that trunk that puts each caller in a room of their own (`call-inbound-…`) and
 * dispatches the agent worker with `{kind: 'inbound', phoneNumberId}`. Parley makes them when a
 * number gets an inbound agent, keeps them in step when the number changes, deletes them when it
 * stops answering or is deleted, and the reconcile job (at start, then hourly) repairs what
 * LiveKit lost or what drifted. The agent itself is read from the database when a call comes,
 * so changing the inbound agent changes nothing in LiveKit.
 */

export const INBOUND_RECONCILE_JOB = 'phone-numbers.inbound-reconcile'
const HOUR_MS = 60 * 60 * 1000

/** What Parley names its LiveKit trunk and rule of a number (found by name if an id was lost). */
const livekitNameOf = (phoneNumberId: string) => `parley-inbound-${phoneNumberId}`

/** The trunk's and rule's own metadata: whose they are (the reconcile job finds orphans by it). */
type OwnerMetadata = { parley: 'inbound'; phoneNumberId: string }

const ownerOf = (metadata: string): OwnerMetadata | null => {
  try {
    const parsed = JSON.parse(metadata) as Partial<OwnerMetadata> | null
    return parsed?.parley === 'inbound' && typeof parsed.phoneNumberId === 'string'
      ? { parley: 'inbound', phoneNumberId: parsed.phoneNumberId }
      : null
  } catch {
    return null
  }
}

const wantedOf = (row: store.PhoneNumberRow): SipInboundWanted => {
  const owner: OwnerMetadata = { parley: 'inbound', phoneNumberId: row.id }
  const job: InboundJobMetadata = { kind: 'inbound', phoneNumberId: row.id }
  return {
    name: livekitNameOf(row.id),
    number: row.number,
    metadata: JSON.stringify(owner),
    roomPrefix: INBOUND_ROOM_PREFIX,
    agentMetadata: JSON.stringify(job),
  }
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((item, i) => item === b[i])

const trunkDrift = (trunk: SipInboundTrunk, wanted: SipInboundWanted) =>
  !sameList(trunk.numbers, [wanted.number]) ||
  trunk.metadata !== wanted.metadata ||
  trunk.name !== wanted.name

const ruleDrift = (
  rule: SipDispatchRule,
  { wanted, trunkId, agentName }: { wanted: SipInboundWanted; trunkId: string; agentName: string },
) =>
  !sameList(rule.trunkIds, [trunkId]) ||
  rule.roomPrefix !== wanted.roomPrefix ||
  rule.agents.length !== 1 ||
  rule.agents[0]?.agentName !== agentName ||
  rule.agents[0]?.metadata !== wanted.agentMetadata

type LiveKitState = { trunks: SipInboundTrunk[]; rules: SipDispatchRule[] }

/** A number's inbound side as the API shows it; null when the number does not answer. */
export const inboundOf = (row: store.PhoneNumberRow): PhoneNumberInbound | null => {
  if (!row.inboundAgentId) return null
  const made = row.livekitTrunkId !== null && row.livekitDispatchRuleId !== null
  return {
    status: row.inboundSyncError ? 'error' : made && row.inboundSyncedAt ? 'synced' : 'pending',
    livekitTrunkId: row.livekitTrunkId,
    livekitDispatchRuleId: row.livekitDispatchRuleId,
    syncedAt: row.inboundSyncedAt?.toISOString() ?? null,
    error: row.inboundSyncError,
  }
}

const readState = async (ctx: AppContext): Promise<LiveKitState> => {
  const sip = ctx.livekit?.sipInbound
  if (!sip) return { trunks: [], rules: [] }
  const [trunks, rules] = await Promise.all([sip.listTrunks(), sip.listRules()])
  return { trunks, rules }
}

/**
 * Brings LiveKit in step with one number that answers: finds its trunk and rule (by the stored
 * id, else by name), makes what is missing, updates a trunk that drifted, replaces a rule that
 * drifted. Answers what it changed, in words for the log.
 */
const repairNumber = async (
  ctx: AppContext,
  row: store.PhoneNumberRow,
  state: LiveKitState,
): Promise<{ fixes: string[]; trunkId: string; ruleId: string }> => {
  const livekit = ctx.livekit
  if (!livekit) throw new Error('LiveKit is not configured')
  const sip = livekit.sipInbound
  const wanted = wantedOf(row)
  const fixes: string[] = []

  const trunk =
    state.trunks.find((item) => item.id === row.livekitTrunkId) ??
    state.trunks.find((item) => item.name === wanted.name)
  let trunkId: string
  if (!trunk) {
    trunkId = await sip.createTrunk(wanted)
    fixes.push(
      row.livekitTrunkId
        ? `recreated the lost trunk ${row.livekitTrunkId} as ${trunkId}`
        : `created trunk ${trunkId}`,
    )
  } else {
    trunkId = trunk.id
    if (trunkDrift(trunk, wanted)) {
      await sip.updateTrunk(trunkId, wanted)
      fixes.push(`updated trunk ${trunkId} (numbers ${trunk.numbers.join(',') || 'none'} → ${wanted.number})`)
    }
  }

  const rules = state.rules.filter(
    (item) => item.id === row.livekitDispatchRuleId || item.name === wanted.name,
  )
  const keep = rules.find((item) => !ruleDrift(item, { wanted, trunkId, agentName: livekit.agentName }))
  for (const rule of rules) {
    if (rule === keep) continue
    await sip.deleteRule(rule.id)
    fixes.push(`deleted dispatch rule ${rule.id}, which had drifted`)
  }
  let ruleId: string
  if (keep) ruleId = keep.id
  else {
    ruleId = await sip.createRule({ ...wanted, trunkId })
    fixes.push(
      row.livekitDispatchRuleId && rules.length === 0
        ? `recreated the lost dispatch rule ${row.livekitDispatchRuleId} as ${ruleId}`
        : `created dispatch rule ${ruleId}`,
    )
  }
  return { fixes, trunkId, ruleId }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 500)

/**
 * Keeps one number's LiveKit side in step after a change: made or repaired while it answers,
 * deleted when it stopped answering. A LiveKit failure does not undo the change: it is recorded
 * on the number (inbound.status `error`) and the reconcile job tries again.
 */
export const syncInbound = async (ctx: AppContext, row: store.PhoneNumberRow) => {
  if (!ctx.livekit) return row
  try {
    if (!row.inboundAgentId) {
      if (!row.livekitTrunkId && !row.livekitDispatchRuleId) return row
      await removeInbound(ctx, row)
      return (
        (await store.setInboundSync(ctx.db, {
          id: row.id,
          trunkId: null,
          ruleId: null,
          syncedAt: null,
          error: null,
        })) ?? row
      )
    }
    const { fixes, trunkId, ruleId } = await repairNumber(ctx, row, await readState(ctx))
    if (fixes.length > 0)
      ctx.logger.info({ phoneNumberId: row.id, fixes }, 'inbound number synced with LiveKit')
    return (
      (await store.setInboundSync(ctx.db, {
        id: row.id,
        trunkId,
        ruleId,
        syncedAt: new Date(),
        error: null,
      })) ?? row
    )
  } catch (error) {
    ctx.logger.warn({ err: error, phoneNumberId: row.id }, 'could not sync an inbound number with LiveKit')
    await store.setInboundSyncError(ctx.db, { id: row.id, error: messageOf(error) })
    return { ...row, inboundSyncError: messageOf(error) }
  }
}

/** Deletes a number's dispatch rule and trunk from LiveKit (those already gone count as deleted). */
export const removeInbound = async (
  ctx: AppContext,
  row: Pick<store.PhoneNumberRow, 'livekitTrunkId' | 'livekitDispatchRuleId'>,
) => {
  const sip = ctx.livekit?.sipInbound
  if (!sip) return
  if (row.livekitDispatchRuleId) await sip.deleteRule(row.livekitDispatchRuleId)
  if (row.livekitTrunkId) await sip.deleteTrunk(row.livekitTrunkId)
}

/**
 * The reconcile job: every number that answers is brought in step (trunks or rules LiveKit lost
 * are made again, drifted ones updated or replaced), and Parley's trunks and rules whose number no
 * longer exists or no longer answers are deleted. Logs what it fixed; a number it cannot repair
 * keeps its error and the others go on.
 */
export const reconcileInbound = async (ctx: AppContext) => {
  if (!ctx.livekit) return { fixed: 0 }
  const state = await readState(ctx)
  const numbers = await store.listAnsweringNumbers(ctx.db)
  let fixed = 0
  for (const row of numbers) {
    try {
      const { fixes, trunkId, ruleId } = await repairNumber(ctx, row, state)
      await store.setInboundSync(ctx.db, { id: row.id, trunkId, ruleId, syncedAt: new Date(), error: null })
      if (fixes.length === 0) continue
      fixed += 1
      ctx.logger.warn({ phoneNumberId: row.id, fixes }, 'inbound reconcile repaired a number in LiveKit')
    } catch (error) {
      ctx.logger.error({ err: error, phoneNumberId: row.id }, 'inbound reconcile could not repair a number')
      await store.setInboundSyncError(ctx.db, { id: row.id, error: messageOf(error) })
    }
  }
  // Parley's own trunks and rules (by their metadata) of numbers that no longer answer.
  const answering = new Set(numbers.map((row) => row.id))
  const owned = [
    ...state.rules.map((rule) => ({ kind: 'rule' as const, id: rule.id, owner: ownerOf(rule.metadata) })),
    ...state.trunks.map((trunk) => ({
      kind: 'trunk' as const,
      id: trunk.id,
      owner: ownerOf(trunk.metadata),
    })),
  ].filter((item) => item.owner !== null && !answering.has(item.owner.phoneNumberId))
  const stillThere = await store.existingNumberIds(
    ctx.db,
    owned.map((item) => item.owner?.phoneNumberId ?? ''),
  )
  for (const item of owned) {
    const phoneNumberId = item.owner?.phoneNumberId ?? ''
    // A number whose rule is being made right now answers already in the database: left alone above.
    try {
      if (item.kind === 'rule') await ctx.livekit.sipInbound.deleteRule(item.id)
      else await ctx.livekit.sipInbound.deleteTrunk(item.id)
      fixed += 1
      ctx.logger.warn(
        { phoneNumberId, [item.kind === 'rule' ? 'dispatchRuleId' : 'trunkId']: item.id },
        `inbound reconcile deleted the ${item.kind === 'rule' ? 'dispatch rule' : 'trunk'} of a number that ${stillThere.has(phoneNumberId) ? 'no longer answers' : 'was deleted'}`,
      )
    } catch (error) {
      ctx.logger.error({ err: error, phoneNumberId }, 'inbound reconcile could not delete an orphan')
    }
  }
  return { fixed }
}

export const registerPhoneNumberJobs = (ctx: AppContext) => {
  ctx.jobs.define(INBOUND_RECONCILE_JOB, () => reconcileInbound(ctx).then(() => undefined), {
    concurrency: 1,
  })
}

/** At start, then hourly: one record for the deployment. */
export const schedulePhoneNumberJobs = async (ctx: AppContext) => {
  if (!ctx.livekit) return
  await ctx.jobs.every(HOUR_MS, INBOUND_RECONCILE_JOB)
  await ctx.jobs.now(INBOUND_RECONCILE_JOB, {})
}
