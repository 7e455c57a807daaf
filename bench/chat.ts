import { type ChildProcess, fork } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createParser } from 'eventsource-parser'
import { Agent, fetch as fetchThrough } from 'undici'
import type { FakeReply } from '../server/test/helpers/fake-llm.ts'
import { selfSignedCertificate } from '../server/test/helpers/tls.ts'
import { percentile } from './stats.ts'

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 100)
/** Replies through a new server before (a) counts any (BENCH_WARM_UP). */
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 10)
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 300)
const STREAMS = Number(process.env.BENCH_STREAMS ?? 10000)
/** `h2` (default): the upstream speaks HTTPS and HTTP/2 as hosted providers do; `h1`: plain HTTP/1.1. */
const UPSTREAM = process.env.BENCH_UPSTREAM ?? 'h2'
const CHUNK_DELAY_MS = 5
const CHUNKS = 20

/** The bench's own client to the upstream when it speaks TLS: trusts its certificate, offers HTTP/2. */
let upstreamDispatcher: Agent | undefined

const call = async (
  url: string,
  init: { token?: string; headers?: Record<string, string>; json?: unknown },
) => {
  const response = await (upstreamDispatcher && url.startsWith('https:')
    ? (fetchThrough(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(init.json ?? {}),
        dispatcher: upstreamDispatcher,
      }) as unknown as Promise<Response>)
    : fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
          ...init.headers,
        },
        body: JSON.stringify(init.json ?? {}),
      }))
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`)
  return response
}

/** Milliseconds from the request to the first text and to the end of a streamed body. */
const timeStream = async (
  request: () => Promise<Response>,
  isText: (data: string, event?: string) => boolean,
) => {
  const started = performance.now()
  const at = performance.timeOrigin + started
  const response = await request()
  const headers = performance.now() - started
  let first = 0
  const parser = createParser({
    onEvent: ({ data, event }) => {
      if (!first && isText(data, event)) first = performance.now() - started
    },
  })
  const decoder = new TextDecoder()
  for await (const part of response.body as AsyncIterable<Uint8Array>)
    parser.feed(decoder.decode(part, { stream: true }))
  return { at, headers, first, last: performance.now() - started }
}

type ChildMessage =
  | { type: 'ready'; url: string }
  | {
      type: 'stats'
      openStreams: number
      activeReplies: number
      rssMiB: number
      heapUsedMiB: number
      heapTotalMiB: number
      externalMiB: number
      arrayBuffersMiB: number
    }
  | { type: 'stopped' }
  | { type: 'done' }
  | { type: 'watching' }
  | {
      type: 'pauses'
      loopDelayMs: { p50: number; p90: number; p99: number; max: number }
      collections: Collections
      byKind: Record<'scavenge' | 'mark-compact' | 'other', Collections>
      each: { at: number; ms: number; kind: string }[]
    }
  | { type: 'snapshot'; path: string }

type Collections = { count: number; totalMs: number; maxMs: number; over5Ms: number }

/** The next message of `type` from a forked child. */
const nextMessage = async <T extends ChildMessage['type']>(child: ChildProcess, type: T) => {
  for (;;) {
    const [message] = (await once(child, 'message')) as [ChildMessage]
    if (message.type === type) return message as Extract<ChildMessage, { type: T }>
  }
}

/** `script` of bench/ in a process of its own, once it says it is ready. */
const forkReady = async (
  script: string,
  { env = {}, flags = [] }: { env?: Record<string, string>; flags?: string[] } = {},
) => {
  const child = fork(fileURLToPath(new URL(script, import.meta.url)), {
    execArgv: [...flags, '--import', 'tsx'],
    env: { ...process.env, ...env },
  })
  const exited = once(child, 'exit').then(() => {
    throw new Error(`${script} exited`)
  })
  const { url } = await Promise.race([nextMessage(child, 'ready'), exited])
  return { child, url }
}

/** A process's limit on open files (soft), from /proc; null where there is none to read. */
const openFilesLimit = (pid: number | undefined) => {
  try {
    const line = readFileSync(`/proc/${pid}/limits`, 'utf8')
      .split('\n')
      .find((each) => each.startsWith('Max open files'))
    return line ? Number(line.split(/\s{2,}/)[1]) : null
  } catch {
    return null
  }
}

/** The server in a process of its own: its RSS is then the server's alone. */
const forkServer = async (env: Record<string, string>, processEnv: Record<string, string> = {}) => {
  const { child, url } = await forkReady('./chat-server.ts', {
    env: { BENCH_SERVER_ENV: JSON.stringify(env), ...processEnv },
    // As `npm start` runs it (package.json).
    flags: (process.env.BENCH_FLAGS ?? '--heap-growing-percent=30 --no-memory-reducer')
      .split(' ')
      .filter(Boolean),
  })
  return {
    url,
    openFilesLimit: () => openFilesLimit(child.pid),
    stats: async () => {
      child.send({ type: 'stats' })
      return nextMessage(child, 'stats')
    },
    /** Starts recording the server's event-loop delay and collection pauses. */
    watch: async () => {
      child.send({ type: 'watch' })
      await nextMessage(child, 'watching')
    },
    /** What was recorded since `watch`. */
    pauses: async () => {
      child.send({ type: 'pauses' })
      return nextMessage(child, 'pauses')
    },
    /** A heap snapshot of the server written to `path` (BENCH_HEAP_SNAPSHOTS). */
    snapshot: async (path: string) => {
      child.send({ type: 'snapshot', path })
      return (await nextMessage(child, 'snapshot')).path
    },
    stop: async () => {
      child.send({ type: 'stop' })
      await nextMessage(child, 'stopped').catch(() => undefined)
    },
  }
}

/** The fake upstream in a process of its own, so neither the client nor the server delays its chunks. */
const forkUpstream = async (tls?: { key: string; cert: string }) => {
  const { child, url } = await forkReady('./chat-upstream.ts', {
    env: tls ? { BENCH_UPSTREAM_TLS: JSON.stringify(tls) } : {},
  })
  const request = async (message: Record<string, unknown>) => {
    child.send(message)
    return (await nextMessage(child, 'done')) as unknown as { opened?: number; open?: number }
  }
  return {
    baseUrl: url,
    connections: async () => {
      const { opened = 0, open = 0 } = await request({ type: 'connections' })
      return { opened, open }
    },
    setFallback: (reply: FakeReply) => request({ type: 'reply', reply }),
    close: () => request({ type: 'stop' }).catch(() => undefined),
  }
}

/**
 * The chat path's overhead against the fake upstream read directly in the same run: (a) added
 * latency to the first and last chunk, (b) sessions created per second, (c) concurrent open
 * streams of one process and its memory. Embedded PGlite unless DATABASE_URL is set.
 */
/** An OTLP/HTTP receiver on loopback that reads and drops what it is sent, counting exports and bytes. */
const startTraceSink = async () => {
  let exports = 0
  let bytes = 0
  const sink = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length
    })
    request.on('end', () => {
      exports += 1
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve))
  const { port } = sink.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    received: () => ({ exports, bytes }),
    close: () => new Promise<void>((resolve) => sink.close(() => resolve())),
  }
}

export const run = async () => {
  const tls = UPSTREAM === 'h2' ? selfSignedCertificate() : undefined
  const certificateDirectory = mkdtempSync(join(tmpdir(), 'parley-bench-ca-'))
  const caFile = join(certificateDirectory, 'ca.pem')
  if (tls) {
    writeFileSync(caFile, tls.cert)
    upstreamDispatcher = new Agent({ allowH2: true, connect: { ca: tls.cert } })
  }
  const llm = await forkUpstream(tls)
  await llm.setFallback({
    text: Array.from({ length: CHUNKS }, (_, i) => `word${i} `),
    delayMs: CHUNK_DELAY_MS,
  })
  // BENCH_TRACING=1: the server exports traces to a loopback OTLP/HTTP sink here (README, Traces).
  const sink = process.env.BENCH_TRACING === '1' ? await startTraceSink() : null
  // Errors only: a refused request in (c) should say why.
  const server = await forkServer(
    {
      ...(sink ? { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } : {}),
      LLM_BASE_URL: llm.baseUrl,
      TRIAL_CREDITS_USD: '10000',
      LOG_LEVEL: 'error',
      // (c) holds BENCH_STREAMS streams of one organization: its cap is lifted to measure them.
      STREAMS_PER_ORGANIZATION: '1000000',
      // One sign-up a run, all from loopback: with REDIS_URL the sign-up limit's count outlives the
      // server, so the default 5 an hour would refuse the sixth run.
      SIGNUPS_PER_ADDRESS: '999999',
      // BENCH_METRICS=0 measures the same server without Prometheus metrics (README, Metrics).
      METRICS_ENABLED: process.env.BENCH_METRICS ?? '1',
    },
    tls ? { NODE_EXTRA_CA_CERTS: caFile } : {},
  )
  try {
    const base = server.url
    const signup = (await (
      await call(`${base}/api/auth/signup`, {
        json: {
          organizationName: 'Bench',
          name: 'Bench',
          email: `bench-${Date.now()}@example.com`,
          password: 'bench password 123',
        },
      })
    ).json()) as { token: string }
    // Session creation is limited to 100 a minute per key: spread the load over enough keys.
    const keys: string[] = []
    for (let i = 0; i < Math.ceil((WARM_UP + SAMPLES + SESSIONS + STREAMS) / 90); i++)
      keys.push(
        (
          (await (
            await call(`${base}/api/api-keys`, {
              token: signup.token,
              json: { name: `bench ${i}`, type: 'secret' },
            })
          ).json()) as { key: string }
        ).key,
      )
    const key = keys[0] as string
    let sessionsMade = 0
    const agent = (await (
      await call(`${base}/v1/agents`, {
        headers: { 'x-api-key': key },
        json: {
          name: 'Bench Agent',
          agentArchitecture: 'text',
          model: 'gpt-4o-mini',
          systemPrompt: 'Be brief.',
        },
      })
    ).json()) as { data: { id: string } }
    const createSession = async () =>
      (await (
        await call(`${base}/v1/chat/sessions`, {
          headers: { 'x-api-key': keys[Math.floor(sessionsMade++ / 90)] as string },
          json: { agent_id: agent.data.id },
        })
      ).json()) as {
        conversation_id: string
        session_token: string
      }

    // (a) added latency, sample by sample: the upstream directly, then the same through the server.
    const added = { first: [] as number[], last: [] as number[] }
    /** Each reply through the server: when it was sent (ms since the epoch), its headers and first chunk. */
    const throughs: { at: number; headers: number; first: number; added: number }[] = []
    /** One reply timed straight from the upstream, then one through the server in a new session. */
    const sample = async () => {
      const direct = await timeStream(
        () =>
          call(`${llm.baseUrl}/chat/completions`, {
            json: { model: 'gpt-4o-mini', messages: [], stream: true },
          }),
        (data) => data.includes('"content":"word'),
      )
      const session = await createSession()
      const through = await timeStream(
        () =>
          call(`${base}/v1/chat/sessions/${session.conversation_id}/messages`, {
            token: session.session_token,
            json: { message: 'Hi' },
          }),
        (_data, event) => event === 'chunk',
      )
      return { direct, through }
    }
    // The first replies of a new process are not the steady state the aim is about: statements are
    // prepared and planned for the first time, and V8 has not compiled the path yet. They run first,
    // uncounted, and the very first is reported on its own.
    const warmUps: number[] = []
    for (let i = 0; i < WARM_UP; i++) {
      const { direct, through } = await sample()
      warmUps.push(through.first - direct.first)
    }
    await server.watch()
    for (let i = 0; i < SAMPLES; i++) {
      const { direct, through } = await sample()
      added.first.push(through.first - direct.first)
      throughs.push({ ...through, added: through.first - direct.first })
      added.last.push(through.last - direct.last)
    }
    const pauses = await server.pauses()

    // (b) session creation rate, 16 at a time.
    const started = performance.now()
    let made = 0
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (made < SESSIONS) {
          made++
          await createSession()
        }
      }),
    )
    const sessionsPerSecond = SESSIONS / ((performance.now() - started) / 1000)

    // (c) open streams held at once: replies that never finish, opened 16 at a time.
    const idle = await server.stats()
    await llm.setFallback({ hang: true })
    const open: AbortController[] = []
    const openStream = async () => {
      const session = await createSession()
      const controller = new AbortController()
      const response = await fetch(`${base}/v1/chat/sessions/${session.conversation_id}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${session.session_token}` },
        body: JSON.stringify({ message: 'Hold on' }),
        signal: controller.signal,
      })
      if (response.status !== 200)
        throw new Error(`stream ${open.length}: ${response.status} ${await response.text()}`)
      open.push(controller)
      // Keep reading: an unread body can be collected, which closes the connection and the stream.
      void (async () => {
        for await (const _ of response.body as AsyncIterable<Uint8Array>);
      })().catch(() => undefined)
    }
    let requested = 0
    /** The first refusal stops the ramp: the figures then say how far one process got. */
    let refusal: string | null = null
    const rampTo = (target: number) =>
      Promise.all(
        Array.from({ length: 16 }, async () => {
          while (requested < target && refusal === null) {
            requested++
            await openStream().catch((error: unknown) => {
              refusal ??= error instanceof Error ? error.message : String(error)
            })
          }
        }),
      )
    // BENCH_HEAP_SNAPSHOTS=<dir>: the server's heap at half the streams and at all of them, to
    // compare what each stream retains (Chrome DevTools, Memory, Comparison).
    const snapshots = process.env.BENCH_HEAP_SNAPSHOTS
    const written: string[] = []
    if (snapshots) {
      await rampTo(Math.floor(STREAMS / 2))
      written.push(await server.snapshot(join(snapshots, `chat-${Math.floor(STREAMS / 2)}.heapsnapshot`)))
    }
    await rampTo(STREAMS)
    if (snapshots) written.push(await server.snapshot(join(snapshots, `chat-${STREAMS}.heapsnapshot`)))
    const { openStreams, rssMiB, heapUsedMiB, heapTotalMiB, externalMiB } = await server.stats()
    const upstreamConnections = await llm.connections()

    const fmt = (n: number) => n.toFixed(2)
    const loadAverage = () => loadavg().map(fmt).join(' ')
    process.stdout.write(
      [
        `chat benchmark (${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}; upstream: ${CHUNKS} chunks, ${CHUNK_DELAY_MS} ms apart; metrics ${process.env.BENCH_METRICS === '0' ? 'off' : 'on'}; tracing ${sink ? 'on' : 'off'})`,
        `(a) added latency over ${SAMPLES} replies, first chunk: p50 ${fmt(percentile(added.first, 50))} ms, p90 ${fmt(percentile(added.first, 90))} ms, p99 ${fmt(percentile(added.first, 99))} ms, max ${fmt(Math.max(...added.first))} ms (target p50 <= 5 ms, p99 <= 10 ms)`,
        `    before them, ${WARM_UP} warm-up replies not counted: ${warmUps.map(fmt).join(', ')} ms (the first is the new process's first reply)`,
        `    added latency, last chunk:  p50 ${fmt(percentile(added.last, 50))} ms, p90 ${fmt(percentile(added.last, 90))} ms, p99 ${fmt(percentile(added.last, 99))} ms`,
        `    server during (a): event-loop delay p50 ${fmt(pauses.loopDelayMs.p50)} ms, p90 ${fmt(pauses.loopDelayMs.p90)} ms, p99 ${fmt(pauses.loopDelayMs.p99)} ms, max ${fmt(pauses.loopDelayMs.max)} ms; ${pauses.collections.count} collections, ${fmt(pauses.collections.totalMs)} ms in all, longest ${fmt(pauses.collections.maxMs)} ms, ${pauses.collections.over5Ms} over 5 ms`,
        `    collections by kind: ${(['scavenge', 'mark-compact', 'other'] as const)
          .map((kind) => {
            const each = pauses.byKind[kind]
            return `${kind} ${each.count} (${fmt(each.totalMs)} ms, longest ${fmt(each.maxMs)} ms, ${each.over5Ms} over 5 ms)`
          })
          .join('; ')}`,
        `    slowest first chunks (ms): ${[...throughs]
          .sort((a, b) => b.added - a.added)
          .slice(0, 5)
          .map((each) => {
            // The server's collections that began while this reply waited for its first chunk.
            const during = pauses.each.filter(
              (gc) => gc.at + gc.ms >= each.at && gc.at <= each.at + each.first,
            )
            const gcMs = during.reduce((sum, gc) => sum + gc.ms, 0)
            return `${fmt(each.added)} (headers at ${fmt(each.headers)}; ${during.length} collections in it, ${fmt(gcMs)} ms)`
          })
          .join(', ')}; load average ${loadAverage()}`,
        `(b) sessions created: ${fmt(sessionsPerSecond)} per second (${SESSIONS}, 16 at a time)`,
        `(c) open streams: ${openStreams} of ${STREAMS} requested, server process RSS ${fmt(rssMiB)} MiB (JS heap ${fmt(heapUsedMiB)} MiB used of ${fmt(heapTotalMiB)} MiB, external incl. WASM ${fmt(externalMiB)} MiB; the server runs in a process of its own; target 10,000 under 1 GiB)`,
        `    upstream (${tls ? 'HTTPS, HTTP/2 offered' : 'plain HTTP/1.1'}): ${upstreamConnections.open} connections open for ${openStreams} streams (${upstreamConnections.opened} opened in the whole run); RSS per open stream ${fmt((rssMiB * 1024) / Math.max(1, openStreams))} KiB all told; server's open-files limit ${server.openFilesLimit() ?? 'unknown'} (the bench cannot raise it: set \`ulimit -n\` before it runs)`,
        ...(written.length > 0 ? [`    heap snapshots: ${written.join(', ')}`] : []),
        ...(refusal ? [`    stopped at the first refusal: ${refusal}`] : []),
        ...(sink
          ? [
              `    traces: ${sink.received().exports} OTLP exports, ${fmt(sink.received().bytes / 1024)} KiB received so far`,
            ]
          : []),
        `    before the streams: RSS ${fmt(idle.rssMiB)} MiB (external incl. WASM ${fmt(idle.externalMiB)} MiB); each open stream adds about ${fmt(((rssMiB - idle.rssMiB) * 1024) / Math.max(1, openStreams))} KiB, ${fmt(((heapUsedMiB - idle.heapUsedMiB) * 1024) / Math.max(1, openStreams))} KiB of it JS heap used`,
        '',
      ].join('\n'),
    )
    // All clients go away at once: each aborted reply still records its partial text and settles
    // its hold after its stream has closed. Waited for by the replies still active (unrecorded);
    // the server's log names any that could not be recorded.
    const aborted = performance.now()
    for (const controller of open) controller.abort()
    let unrecorded = openStreams
    for (let waited = 0; waited < 240 && unrecorded > 0; waited++) {
      await new Promise((resolve) => setTimeout(resolve, 500))
      unrecorded = (await server.stats()).activeReplies
    }
    process.stdout.write(
      `(d) all ${openStreams} streams aborted at once: ${unrecorded === 0 ? `every reply done recording in ${fmt((performance.now() - aborted) / 1000)} s (the server's log above names any that failed)` : `${unrecorded} still recording after 120 s`}; load average ${loadAverage()}\n`,
    )
  } finally {
    await server.stop()
    await llm.close()
    await upstreamDispatcher?.close()
    rmSync(certificateDirectory, { recursive: true, force: true })
    await sink?.close()
  }
}
