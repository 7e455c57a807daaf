import { availableParallelism, loadavg } from 'node:os'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { start } from '../server/src/server.ts'
import { benchConfig } from './bench-config.ts'
import { prepareBatchTenant } from './bench-tenant.ts'
import { percentile } from './stats.ts'

const TEN_MIB = 10 * 1024 * 1024

/** A CSV of `columns` columns filling about `bytes`. */
const wideCsv = (columns: number, bytes: number) => {
  const header = ['phone', ...Array.from({ length: columns - 1 }, (_, i) => `c${i}`)].join(',')
  const row = `+14155550111,${Array.from({ length: columns - 1 }, () => 'abcdefghi').join(',')}\n`
  return `${header}\n${row.repeat(Math.floor((bytes - header.length - 1) / row.length))}`
}

/**
 * `npm run bench -- abuse`: the event-loop delay (perf_hooks monitorEventLoopDelay, 1 ms
 * resolution) of a server in this process while hostile CSVs are uploaded, and the latency of
 * 200 /healthz requests sent meanwhile. Aim: p99 under 50 ms. (The chat-replies load of issue 18
 * and the hold-cost figure are not part of this branch's bench.)
 */
export const run = async () => {
  const { config, removeDataDir } = benchConfig({ ROLE: 'api' })
  const server = await start({ config })
  try {
    const { key, phoneNumberId } = await prepareBatchTenant(server, {
      adminToken: config.adminToken,
      label: 'Abuse',
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
      const probes = Array.from({ length: 200 }, async (_, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * 5))
        const started = performance.now()
        await (await fetch(`${server.url}/healthz`)).text()
        return performance.now() - started
      })
      const [uploaded, ...latencies] = await Promise.all([upload, ...probes])
      delay.disable()
      const ms = (ns: number) => (ns / 1e6).toFixed(1)
      process.stdout.write(
        [
          `abuse: ${label}: answered ${uploaded?.status} in ${uploaded?.ms.toFixed(0)} ms (load ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} CPUs)`,
          `  event-loop delay p50 ${ms(delay.percentile(50))} ms, p99 ${ms(delay.percentile(99))} ms, max ${ms(delay.max)} ms (target p99 < 50 ms: ${delay.percentile(99) / 1e6 < 50 ? 'met' : 'NOT met'})`,
          `  /healthz during it: p50 ${percentile(latencies as number[], 50).toFixed(1)} ms, p99 ${percentile(latencies as number[], 99).toFixed(1)} ms`,
        ].join('\n') + '\n',
      )
    }
  } finally {
    await server.stop()
    removeDataDir()
  }
}
