import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { createWorkerMetrics } from '../../../agent/src/worker-metrics.ts'
import './database.ts'
import { collectProcessMetrics, registry } from './registry.ts'

const read = (path: string) => readFileSync(new URL(`../../../deploy/${path}`, import.meta.url), 'utf8')

/** Every series name a family of the API or the voice worker answers: a histogram's _bucket, _sum and _count too. */
const servedNames = async () => {
  collectProcessMetrics()
  const worker = createWorkerMetrics({ activeJobs: () => 0 }).registry
  const names = new Set<string>()
  const families = [...(await registry.getMetricsAsJSON()), ...(await worker.getMetricsAsJSON())]
  for (const metric of families) {
    names.add(metric.name)
    if (String(metric.type) === 'histogram' || String(metric.type) === 'summary')
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${metric.name}${suffix}`)
  }
  return names
}

const namedIn = (text: string) => new Set(text.match(/\bparley_[a-z0-9_]+/g) ?? [])

describe('deploy/', () => {
  it('the Grafana dashboard and the alert rules name only metrics the API or the voice worker serves', async () => {
    const served = await servedNames()
    const dashboard = read('grafana/parley-dashboard.json')
    const expressions = (
      JSON.parse(dashboard) as { panels: Array<{ targets: Array<{ expr: string }> }> }
    ).panels
      .flatMap((panel) => panel.targets.map((target) => target.expr))
      .join('\n')
    const rules = read('prometheus/parley-alerts.yml')
    for (const [file, text] of [
      ['dashboard', expressions],
      ['rules', rules],
    ] as const) {
      const named = [...namedIn(text)]
      expect(named.length, file).toBeGreaterThan(5)
      expect(
        named.filter((name) => !served.has(name)),
        file,
      ).toEqual([])
    }
  })
})
