import { randomBytes } from 'node:crypto'
import { availableParallelism, loadavg } from 'node:os'
import { sql } from 'kysely'
import { start } from '../server/src/server.ts'
import { benchConfig } from './bench-config.ts'
import { callJson } from './bench-tenant.ts'
import { percentile } from './stats.ts'

/**
 * `npm run bench -- history`: the owner's data at scale. Seeds 1,000,000 messages in 100,000
 * conversations across 10 organizations (HISTORY_MESSAGES scales it down: 10 messages a
 * conversation), then times over loopback: the conversations list (first pages and pages deep by
 * cursor), full-text search, analytics over the 90 days, and exports of every organization's
 * conversations with their messages (rows per second, and the process's peak RSS against before).
 * Run it on PostgreSQL (DATABASE_URL) for the figures the issue asks for; the embedded database
 * works at a smaller HISTORY_MESSAGES.
 */
const ORGANIZATIONS = 10
const MESSAGES_PER_CONVERSATION = 10
const LIST_RUNS = 200
const SEARCH_RUNS = 50
const ANALYTICS_RUNS = 50
const DAYS = 90

const words = [
  'order',
  'refund',
  'parcel',
  'delivery',
  'late',
  'address',
  'invoice',
  'card',
  'return',
  'size',
  'colour',
  'mug',
  'shirt',
  'shoes',
  'tomorrow',
  'today',
  'thanks',
  'please',
  'help',
  'account',
]

/** One untimed run first (a cold plan and cache are not the steady state), then `runs` timed. */
const timed = async (runs: number, once: (run: number) => Promise<unknown>) => {
  await once(0)
  const times: number[] = []
  for (let run = 0; run < runs; run++) {
    const started = performance.now()
    await once(run)
    times.push(performance.now() - started)
  }
  return times
}

const figures = (label: string, times: number[], aim?: number) => {
  const p50 = percentile(times, 50)
  const p99 = percentile(times, 99)
  const verdict = aim === undefined ? '' : ` (aim p99 < ${aim} ms: ${p99 < aim ? 'met' : 'NOT met'})`
  return `  ${label}: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms over ${times.length} requests${verdict}`
}

export const run = async () => {
  const totalMessages = Number(process.env.HISTORY_MESSAGES ?? 1_000_000)
  const conversationsPerOrg = Math.max(
    1,
    Math.round(totalMessages / MESSAGES_PER_CONVERSATION / ORGANIZATIONS),
  )
  const { config, removeDataDir } = benchConfig({
    ROLE: 'all',
    EXPORT_MAX_ROWS: String(conversationsPerOrg * 2),
    // Redis keeps sign-up budgets between runs: room for many runs of ten organizations.
    SIGNUPS_PER_ADDRESS: '100000',
  })
  const server = await start({ config })
  const base = server.url
  const db = server.ctx.db
  try {
    const seedStarted = performance.now()
    const tenants: Array<{ organizationId: string; key: string; token: string; agentId: string }> = []
    for (let index = 0; index < ORGANIZATIONS; index++) {
      const signup = await callJson(`${base}/api/auth/signup`, {
        method: 'POST',
        json: {
          organizationName: `History ${index}`,
          name: 'Bench',
          email: `history-${randomBytes(4).toString('hex')}@example.com`,
          password: 'bench password 123',
        },
      })
      const organizationId = (signup.organization as { id: string }).id
      const token = signup.token as string
      await callJson(`${base}/admin/organizations/${organizationId}`, {
        method: 'PATCH',
        token: config.adminToken,
        json: { tier: 'enterprise', rateLimitPerMinute: 1_000_000 },
      })
      const { key } = (await callJson(`${base}/api/api-keys`, {
        method: 'POST',
        token,
        json: { name: 'bench', type: 'secret' },
      })) as { key: string }
      const agent = await callJson(`${base}/v1/agents`, {
        method: 'POST',
        token: key,
        json: { name: 'Shop', agentArchitecture: 'text', systemPrompt: 'You help.' },
      })
      const agentId = (agent.data as { id: string }).id
      // Conversations over the last 90 days; ten messages each, a few words from the shop's
      // vocabulary, one conversation in a hundred mentioning "zebra" (the search's rare word).
      await sql`insert into conversations (id, organization_id, agent_id, agent_name, status, created_at,
          last_activity_at, ended_at, input_tokens, output_tokens, cost_micros)
        select ${`h${index}-`} || lpad(n::text, 7, '0'), ${organizationId}, ${agentId}, 'Shop', 'ended',
          now() - make_interval(secs => (${conversationsPerOrg} - n) * ${(DAYS * 86_400) / conversationsPerOrg}::float8),
          now() - make_interval(secs => (${conversationsPerOrg} - n) * ${(DAYS * 86_400) / conversationsPerOrg}::float8) + interval '3 minutes',
          now() - make_interval(secs => (${conversationsPerOrg} - n) * ${(DAYS * 86_400) / conversationsPerOrg}::float8) + interval '3 minutes',
          400, 120, 90
        from generate_series(1, ${conversationsPerOrg}) n`.execute(db)
      await sql`insert into chat_messages (id, conversation_id, role, content, token_count, created_at)
        select c.id || '-' || lpad(m::text, 2, '0'), c.id, case when m % 2 = 1 then 'user' else 'assistant' end,
          ${sql.lit(words.join(' '))}::text, 12, c.created_at + make_interval(secs => m * 10)
        from conversations c, generate_series(1, ${MESSAGES_PER_CONVERSATION}) m
        where c.organization_id = ${organizationId}`.execute(db)
      // Vary the words: each message keeps 4 of them, chosen by its position; 1 in 100 gets zebra.
      await sql`update chat_messages set content = (${sql.val(words)}::text[])[1 + (hashtext(id) & 1048575) % 20]
          || ' ' || (${sql.val(words)}::text[])[1 + (hashtext(id || 'b') & 1048575) % 20]
          || ' ' || (${sql.val(words)}::text[])[1 + (hashtext(id || 'c') & 1048575) % 20]
          || case when (hashtext(id) & 1048575) % 1000 = 0 then ' zebra' else ' please' end
        where conversation_id like ${`h${index}-%`}`.execute(db)
      tenants.push({ organizationId, key, token, agentId })
      process.stdout.write(
        `  seeded ${index + 1}/${ORGANIZATIONS} organizations (${((performance.now() - seedStarted) / 1000).toFixed(0)} s)\n`,
      )
    }
    // What autovacuum does after a bulk load: the seed's updates leave dead row versions behind.
    await sql`vacuum analyze`.execute(db)
    const seedSeconds = (performance.now() - seedStarted) / 1000
    const [tenant] = tenants
    if (!tenant) throw new Error('no tenant')
    const get = (path: string, token = tenant.key) => callJson(`${base}${path}`, { token })

    // The list: the first page, and pages further in by cursor (the cursor of page k, reused).
    const cursors: string[] = []
    let cursor: string | null = null
    for (let page = 0; page < 20; page++) {
      const body = await get(`/v1/conversations?limit=20${cursor ? `&cursor=${cursor}` : ''}`)
      cursor = body.nextCursor as string | null
      if (!cursor) break
      cursors.push(cursor)
    }
    const list = await timed(LIST_RUNS, (run) =>
      get(
        `/v1/conversations?limit=20${run % 2 === 1 && cursors.length > 0 ? `&cursor=${cursors[run % cursors.length]}` : ''}`,
      ),
    )
    const filtered = await timed(LIST_RUNS / 2, () =>
      get(`/v1/conversations?limit=20&agentId=${tenant.agentId}&status=ended`),
    )
    const search = await timed(SEARCH_RUNS, (run) =>
      get(`/v1/conversations?limit=20&q=${run % 2 === 0 ? 'zebra' : 'refund%20parcel'}`),
    )
    const day = (offset: number) => new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10)
    const analytics = await timed(ANALYTICS_RUNS, () => get(`/v1/analytics?from=${day(DAYS)}&to=${day(0)}`))

    // Exports: every organization's conversations with their messages, one after another.
    const rssBefore = process.memoryUsage().rss
    let rssPeak = rssBefore
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss)
    }, 25)
    const exportStarted = performance.now()
    let exported = 0
    let bytes = 0
    const peaks: number[] = []
    for (const each of tenants) {
      rssPeak = process.memoryUsage().rss
      const created = await callJson(`${base}/api/export`, {
        method: 'POST',
        token: each.token,
        json: { kind: 'conversations', format: 'ndjson' },
      })
      let view = created
      while (view.status !== 'completed') {
        if (view.status === 'failed') throw new Error(`export failed: ${String(view.error)}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
        view = await callJson(`${base}/api/export/${String(created.id)}`, { token: each.token })
      }
      const download = await fetch(`${base}/api/export/${String(created.id)}/download`, {
        headers: { authorization: `Bearer ${each.token}` },
      })
      for await (const piece of download.body ?? []) bytes += (piece as Uint8Array).length
      exported += Number(view.rowsDone)
      peaks.push(rssPeak)
    }
    clearInterval(sampler)
    const exportSeconds = (performance.now() - exportStarted) / 1000
    const messages = exported * MESSAGES_PER_CONVERSATION
    const mib = (value: number) => `${(value / 1024 / 1024).toFixed(0)} MiB`

    const load = `load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} CPUs`
    process.stdout.write(
      `${[
        `history: ${(conversationsPerOrg * ORGANIZATIONS * MESSAGES_PER_CONVERSATION).toLocaleString('en-US')} messages in ${(conversationsPerOrg * ORGANIZATIONS).toLocaleString('en-US')} conversations across ${ORGANIZATIONS} organizations, ${config.databaseUrl ? 'PostgreSQL' : 'embedded PGlite'}, seeded in ${seedSeconds.toFixed(0)} s, ${load}`,
        figures('list (20 a page, first and deep pages by cursor)', list, 50),
        figures('list filtered by agent and status', filtered, 50),
        figures('search (full text: a rare word, two common words)', search),
        figures(`analytics (${DAYS} days, per agent and day)`, analytics, 50),
        `  export: ${exported.toLocaleString('en-US')} conversations with ${messages.toLocaleString('en-US')} messages (${mib(bytes)} of NDJSON) in ${exportSeconds.toFixed(1)} s: ${Math.round(exported / exportSeconds).toLocaleString('en-US')} conversations/s, ${Math.round(messages / exportSeconds).toLocaleString('en-US')} messages/s`,
        `  server process RSS: ${mib(rssBefore)} before the exports; peak during each of the ${peaks.length}: ${peaks.map(mib).join(', ')} (steady when it stops growing after the first)`,
      ].join('\n')}\n`,
    )
  } finally {
    await server.stop()
    removeDataDir()
  }
}
