import { availableParallelism, loadavg } from 'node:os'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { auditBySystem } from '../server/src/audit/index.ts'
import { placeHold, releaseHold } from '../server/src/billing/holds.ts'
import { createApiKey } from '../server/src/keys/service.ts'
import { type RunningServer, start } from '../server/src/server.ts'
import { benchConfig } from './bench-config.ts'
import { callJson, prepareBatchTenant } from './bench-tenant.ts'
import { percentile } from './stats.ts'

const TEN_MIB = 10 * 1024 * 1024

/** A CSV of `columns` columns filling about `bytes`. */
const wideCsv = (columns: number, bytes: number) => {
  const header = ['phone', ...Array.from({ length: columns - 1 }, (_, i) => `c${i}`)].join(',')
  const row = `+14155550111,${Array.from({ length: columns - 1 }, () => 'abcdefghi').join(',')}\n`
  return `${header}\n${row.repeat(Math.floor((bytes - header.length - 1) / row.length))}`
}

const REPLIES = 200

/** Sends one message on a new chat session and reads its whole reply; answers its latency. */
const replyOnce = async (base: string, session: { conversation_id: string; session_token: string }) => {
  const started = performance.now()
  const response = await fetch(`${base}/v1/chat/sessions/${session.conversation_id}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.session_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'Where is my order?' }),
  })
  const text = await response.text()
  if (response.status !== 200 || !text.includes('stream_end')) throw new Error(`reply: ${response.status}`)
  return performance.now() - started
}

/** The spec allows a key 100 new chat sessions a minute: a fresh secret key for every 90. */
const SESSIONS_PER_KEY = 90

const openSessions = async (server: RunningServer, agentId: string, count: number) => {
  const agent = await server.ctx.db
    .selectFrom('agents')
    .select(['organization_id', 'user_id'])
    .where('id', '=', agentId)
    .executeTakeFirstOrThrow()
  const sessions: Array<{ conversation_id: string; session_token: string }> = []
  let key = ''
  for (let i = 0; i < count; i++) {
    if (i % SESSIONS_PER_KEY === 0)
      ({ key } = await createApiKey(server.ctx, {
        organizationId: agent.organization_id,
        createdBy: agent.user_id,
        name: `bench ${i}`,
        type: 'secret',
        allowedDomains: [],
        by: auditBySystem,
      }))
    const response = await fetch(`${server.url}/v1/chat/sessions`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: agentId }),
    })
    if (response.status !== 200) throw new Error(`session: ${response.status} ${await response.text()}`)
    sessions.push((await response.json()) as { conversation_id: string; session_token: string })
  }
  return sessions
}

/**
 * `npm run bench -- abuse`: the event-loop delay (perf_hooks monitorEventLoopDelay, 1 ms
 * resolution) of a server in this process while hostile CSVs are uploaded alongside 200 chat
 * replies (the offline model: the server's own work, no provider's), and the latency of 200
 * /healthz requests sent meanwhile; aim: p99 under 50 ms. Then the credit hold's cost per reply:
 * a reply's p50 over loopback against the p50 of placing and releasing its hold, as the ratio of
 * a reply to one without the hold (aim: under 1.10).
 */
export const run = async () => {
  const { config, removeDataDir } = benchConfig({ ROLE: 'api' })
  const server = await start({ config })
  try {
    const { key, phoneNumberId } = await prepareBatchTenant(server, {
      adminToken: config.adminToken,
      label: 'Abuse',
    })
    const agent = await callJson(`${server.url}/v1/agents`, {
      method: 'POST',
      token: key,
      json: { name: 'Shop', agentArchitecture: 'text', systemPrompt: 'You help.' },
    })
    const agentId = (agent.data as { id: string }).id
    await callJson(`${server.url}/v1/agents/${agentId}`, {
      method: 'PATCH',
      token: key,
      json: { active: true },
    })
    const files = {
      'widest allowed (100 columns, 10 MiB)': wideCsv(100, TEN_MIB - 4096),
      '500 columns, 10 MiB': wideCsv(500, TEN_MIB - 4096),
      'one row of 600,000 columns': `phone\n${','.repeat(600_000)}`,
    }
    for (const [label, csv] of Object.entries(files)) {
      const delay = monitorEventLoopDelay({ resolution: 1 })
      delay.enable()
      const upload = (async () => {
        const form = new FormData()
        form.append('fromPhoneNumberId', phoneNumberId)
        form.append('name', 'Abuse')
        form.append('file', new Blob([csv], { type: 'text/csv' }), 'wide.csv')
        const started = performance.now()
        const response = await fetch(`${server.url}/batch/create`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}` },
          body: form,
        })
        await response.text()
        return { status: response.status, ms: performance.now() - started }
      })()
      const sessions = await openSessions(server, agentId, REPLIES)
      const replies = Promise.all(
        sessions.map(async (session, i) => {
          await new Promise((resolve) => setTimeout(resolve, i * 5))
          return replyOnce(server.url, session)
        }),
      )
      const probes = Array.from({ length: 200 }, async (_, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * 5))
        const started = performance.now()
        await (await fetch(`${server.url}/healthz`)).text()
        return performance.now() - started
      })
      const [uploaded, ...latencies] = await Promise.all([upload, ...probes])
      const replyTimes = await replies
      delay.disable()
      const ms = (ns: number) => (ns / 1e6).toFixed(1)
      process.stdout.write(
        `${[
          `abuse: ${label}: answered ${uploaded?.status} in ${uploaded?.ms.toFixed(0)} ms (load ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} CPUs)`,
          `  event-loop delay p50 ${ms(delay.percentile(50))} ms, p99 ${ms(delay.percentile(99))} ms, max ${ms(delay.max)} ms (target p99 < 50 ms: ${delay.percentile(99) / 1e6 < 50 ? 'met' : 'NOT met'})`,
          `  /healthz during it: p50 ${percentile(latencies as number[], 50).toFixed(1)} ms, p99 ${percentile(latencies as number[], 99).toFixed(1)} ms`,
          `  ${REPLIES} chat replies during it: p50 ${percentile(replyTimes, 50).toFixed(1)} ms, p99 ${percentile(replyTimes, 99).toFixed(1)} ms`,
        ].join('\n')}\n`,
      )
    }

    // The hold's cost: replies one after another, and the hold alone (place, then release).
    const sessions = await openSessions(server, agentId, REPLIES)
    const replyTimes: number[] = []
    for (const session of sessions) replyTimes.push(await replyOnce(server.url, session))
    const organizationId = (
      await server.ctx.db
        .selectFrom('agents')
        .select('organization_id')
        .where('id', '=', agentId)
        .executeTakeFirstOrThrow()
    ).organization_id
    const holdTimes: number[] = []
    for (let i = 0; i < REPLIES; i++) {
      const started = performance.now()
      const hold = await placeHold(server.ctx, {
        organizationId,
        amountMicros: 10_000,
        kind: 'reply',
        ttlMs: 60_000,
      })
      if (hold) await releaseHold(server.ctx, hold)
      holdTimes.push(performance.now() - started)
    }
    const reply = percentile(replyTimes, 50)
    const hold = percentile(holdTimes, 50)
    const ratio = reply / (reply - hold)
    process.stdout.write(
      `${[
        `abuse: the credit hold's cost per reply (${REPLIES} replies one after another, ${config.databaseUrl ? 'PostgreSQL' : 'embedded PGlite'})`,
        `  reply p50 ${reply.toFixed(2)} ms; its hold (place + release) p50 ${hold.toFixed(2)} ms`,
        `  a reply with its hold against one without: ${ratio.toFixed(3)}× (aim < 1.10: ${ratio < 1.1 ? 'met' : 'NOT met'})`,
      ].join('\n')}\n`,
    )
  } finally {
    await server.stop()
    removeDataDir()
  }
}
