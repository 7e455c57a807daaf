import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * How slow a file is by nature, read from its source: one that drives Chromium through pages
 * (puppeteer), one that spawns processes, one of the voice agent's end-to-end files (workers, real
 * audio). Such files take 20–45 s where most take under 5.
 */
const weightOf = (root: string, file: string) => {
  const source = readFileSync(file, 'utf8')
  if (source.includes("from 'puppeteer-core'")) return 3
  if (source.includes("from 'node:child_process'")) return 2
  if (relative(root, file).startsWith('agent/test/')) return 2
  return 0
}

/**
 * vitest's order (longest first by the durations of the last run, which it keeps in its cache),
 * except for files it has no duration for, as in a fresh clone: those it orders by size, which
 * left the studio's browser files, small and slow, to start last, and the run waited 40 s on them
 * alone (`.ci/run`, session 9: the last two files ended 37 and 46 s after they started). Files
 * without a duration are ordered slow by nature first, within their project.
 */
export default class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]) {
    const sorted = await super.sort(files)
    const { root } = this.ctx.config
    const known = (spec: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${spec.project.name}:${relative(root, spec.moduleId)}`)
    const projectOrder = new Map<string, number>()
    for (const spec of sorted)
      if (!projectOrder.has(spec.project.name)) projectOrder.set(spec.project.name, projectOrder.size)
    return sorted
      .map((spec, index) => ({ spec, index, weight: known(spec) ? 0 : weightOf(root, spec.moduleId) }))
      .sort(
        (a, b) =>
          (projectOrder.get(a.spec.project.name) as number) -
            (projectOrder.get(b.spec.project.name) as number) ||
          b.weight - a.weight ||
          a.index - b.index,
      )
      .map(({ spec }) => spec)
  }
}
