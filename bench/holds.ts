import { sql } from 'kysely'
import { ulid } from 'ulid'
import { settleHold } from '../server/src/billing/holds.ts'
import { debitUsage } from '../server/src/billing/service.ts'
import { CHAT_HOLD_TTL_MS, replyHolds } from '../server/src/chat/billing.ts'
import * as chatStore from '../server/src/chat/store.ts'
import type { AppContext } from '../server/src/context.ts'
import { type RunningServer, start } from '../server/src/server.ts'
import { benchConfig } from './bench-config.ts'
import { callJson, prepareBatchTenant } from './bench-tenant.ts'
import { percentile } from './stats.ts'

/**
 * `npm run bench -- holds`: what a credit hold adds to a reply's database work. Each side runs the
 * reply's claim and its record (the usage debit and the session's totals) for many sessions at
 * once, as replies do: with holds (the claim reserves, the record settles the hold) and without
 * (the claim statement and the plain debit of main before holds, kept below as the baseline).
 * The model's time is left out: it is the same on both sides and would hide the difference.
 */
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 16)
const REPLIES_PER_SESSION = Number(process.env.BENCH_REPLIES ?? 20)
const ROUNDS = 3

type Session = { conversationId: string; organizationId: string }

/** main's claim before holds: the balance read by the claim statement, nothing reserved. */
const claimWithoutHold = async (ctx: AppContext, session: Session) => {
  const now = new Date()
  const { rows } = await sql<{ id: string }>`
    with claimed as (
      update conversations c set reply_started_at = ${now}, last_activity_at = ${now}
      where c.id = ${session.conversationId} and c.organization_id = ${session.organizationId}
        and c.status = 'active' and c.reply_started_at is null
        and exists (select 1 from organizations o where o.id = c.organization_id
          and o.credit_balance_micros >= ${ctx.config.chatMinBalanceMicros} and o.credit_balance_micros > 0)
        and exists (select 1 from agents a where a.organization_id = c.organization_id
          and a.id = coalesce(c.current_agent_id, c.agent_id))
      returning c.*
    ), stored as (
      insert into chat_messages (id, conversation_id, role, content, token_count, status, created_at)
      select ${ulid()}, claimed.id, 'user', 'Hello', 2, 'complete', ${now} from claimed
    )
    select claimed.id,
      (select to_json(a) from agents a where a.organization_id = claimed.organization_id
        and a.id = coalesce(claimed.current_agent_id, claimed.agent_id)) as agent,
      (select json_agg(m.content) from (select content from chat_messages
        where conversation_id = claimed.id order by created_at desc, id desc limit 19) m) as history
    from claimed`.execute(ctx.db)
  if (!rows[0]) throw new Error('baseline claim refused')
}

const usage = (session: Session) => ({
  organizationId: session.organizationId,
  amountMicros: 120,
  reason: 'Chat reply',
  reference: session.conversationId,
})

const replyWithoutHold = async (ctx: AppContext, session: Session) => {
  await claimWithoutHold(ctx, session)
  const charged = await debitUsage(ctx, usage(session))
  await chatStore.addReplyUsage(ctx.db, {
    id: session.conversationId,
    inputTokens: 100,
    outputTokens: 20,
    costMicros: charged,
  })
}

const replyWithHold = async (ctx: AppContext, session: Session) => {
  const holdId = `hold_${ulid()}`
  const outcome = await chatStore.claimReply(ctx.db, {
    id: session.conversationId,
    organizationId: session.organizationId,
    keyId: null,
    idleBefore: new Date(Date.now() - ctx.config.chatIdleTimeoutMs),
    staleBefore: new Date(Date.now() - 600_000),
    minBalanceMicros: ctx.config.chatMinBalanceMicros,
    historyLimit: 19,
    message: { id: ulid(), content: 'Hello', tokenCount: 2 },
    instanceId: ctx.instanceId,
    hold: { id: holdId, ...replyHolds(ctx.config), expiresAt: new Date(Date.now() + CHAT_HOLD_TTL_MS) },
  })
  if (outcome.status !== 'claimed') throw new Error(`claim refused: ${outcome.status}`)
  const charged = await settleHold(ctx, { holdId, usage: usage(session) })
  await chatStore.addReplyUsage(ctx.db, {
    id: session.conversationId,
    inputTokens: 100,
    outputTokens: 20,
    costMicros: charged,
  })
}

type Side = { msPerReply: number; p50: number; p99: number }

const measure = async (
  ctx: AppContext,
  sessions: Session[],
  reply: (ctx: AppContext, session: Session) => Promise<void>,
): Promise<Side> => {
  const latencies: number[] = []
  const startedAt = performance.now()
  await Promise.all(
    sessions.map(async (session) => {
      for (let i = 0; i < REPLIES_PER_SESSION; i++) {
        const t = performance.now()
        await reply(ctx, session)
        latencies.push(performance.now() - t)
      }
    }),
  )
  const elapsed = performance.now() - startedAt
  return {
    msPerReply: elapsed / (sessions.length * REPLIES_PER_SESSION),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  }
}

const openSessions = async (server: RunningServer, adminToken: string) => {
  const { key } = await prepareBatchTenant(server, { adminToken, label: 'Holds bench' })
  const agent = await callJson(`${server.url}/v1/agents`, {
    method: 'POST',
    headers: { 'x-api-key': key },
    json: { name: 'Bench chat', agentArchitecture: 'text', model: 'gpt-4o-mini', systemPrompt: 'You help.' },
  })
  const agentId = (agent.data as { id: string }).id
  const sessions: Session[] = []
  for (let i = 0; i < SESSIONS; i++) {
    const created = await callJson(`${server.url}/v1/chat/sessions`, {
      method: 'POST',
      headers: { 'x-api-key': key },
      json: { agent_id: agentId },
    })
    const conversationId = created.conversation_id as string
    const row = await server.ctx.db
      .selectFrom('conversations')
      .select('organization_id')
      .where('id', '=', conversationId)
      .executeTakeFirstOrThrow()
    sessions.push({ conversationId, organizationId: row.organization_id })
  }
  return sessions
}

const mean = (sides: Side[], pick: (side: Side) => number) =>
  sides.reduce((sum, side) => sum + pick(side), 0) / sides.length

export const run = async () => {
  const { config, removeDataDir } = benchConfig({ CHAT_MIN_BALANCE_USD: '0' })
  const server = await start({ config })
  try {
    const sessions = await openSessions(server, config.adminToken)
    // Warm-up: both paths compiled and their statements prepared before measuring.
    await measure(server.ctx, sessions, replyWithoutHold)
    await measure(server.ctx, sessions, replyWithHold)
    const without: Side[] = []
    const withHolds: Side[] = []
    for (let round = 0; round < ROUNDS; round++) {
      without.push(await measure(server.ctx, sessions, replyWithoutHold))
      withHolds.push(await measure(server.ctx, sessions, replyWithHold))
    }
    const line = (label: string, sides: Side[]) =>
      `${label.padEnd(14)} ${mean(sides, (s) => s.msPerReply).toFixed(3)} ms/reply  p50 ${mean(sides, (s) => s.p50).toFixed(2)} ms  p99 ${mean(sides, (s) => s.p99).toFixed(2)} ms`
    const ratio = mean(withHolds, (s) => s.msPerReply) / mean(without, (s) => s.msPerReply)
    process.stdout.write(
      [
        `holds: ${SESSIONS} sessions × ${REPLIES_PER_SESSION} replies at once, ${ROUNDS} rounds each side alternating (${config.databaseUrl ? 'PostgreSQL' : 'embedded PGlite'})`,
        line('without holds', without),
        line('with holds', withHolds),
        `ratio (with / without, ms per reply): ${ratio.toFixed(3)} (aim under 1.10)`,
        '',
      ].join('\n'),
    )
  } finally {
    await server.stop()
    removeDataDir()
  }
}
