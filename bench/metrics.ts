import { Counter } from 'prom-client'
import '../server/src/metrics/database.ts'
import { collectProcessMetrics, httpDuration, registry } from '../server/src/metrics/registry.ts'
import { percentile } from './stats.ts'

const SERIES = Number(process.env.BENCH_SERIES ?? 10_000)
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 50)

/**
 * GET /metrics' own cost: the time to serialize the registry holding BENCH_SERIES series (10,000).
 * Real traffic makes far fewer (bounded labels); this is the ceiling to plan scrapes by.
 */
export const run = async () => {
  collectProcessMetrics()
  const bench = new Counter({
    name: 'parley_bench_series_total',
    help: 'Synthetic series for the bench',
    labelNames: ['route', 'status'] as const,
    registers: [registry],
  })
  // A histogram label set is 15 series (12 buckets, +Inf, _sum, _count): a fifth of them there.
  const histogramSets = Math.floor(SERIES / 5 / 15)
  for (let i = 0; i < histogramSets; i++)
    httpDuration.observe({ method: 'GET', route: `/bench/${i}`, status: '200' }, 0.01)
  const counterSeries = SERIES - histogramSets * 15
  for (let i = 0; i < counterSeries; i++)
    bench.inc({ route: `/bench/${i % 1000}`, status: String(200 + Math.floor(i / 1000)) })
  const text = await registry.metrics()
  const series = text.split('\n').filter((line) => line && !line.startsWith('#')).length
  const times: number[] = []
  for (let i = 0; i < SAMPLES; i++) {
    const started = performance.now()
    await registry.metrics()
    times.push(performance.now() - started)
  }
  console.log(
    `/metrics with ${series} series (${(Buffer.byteLength(text) / 1024).toFixed(0)} KiB): ` +
      `p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms over ${SAMPLES} scrapes`,
  )
}
