import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/**
 * ARCHITECTURE.md's diagram of the areas is the map: its arrows must be the areas' real imports
 * (files other than tests), no more and no fewer. Infrastructure folders are left out of it.
 */
const root = fileURLToPath(new URL('../../', import.meta.url))
const source = join(root, 'server/src')
const infrastructure = new Set([
  'http',
  'db',
  'crypto',
  'openapi',
  'providers',
  'idempotency',
  'instances',
  'metrics',
  'tracing',
])

const filesUnder = (directory: string): string[] =>
  readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) return filesUnder(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
  })

const areaOf = (file: string) => {
  const parts = relative(source, file).split('/')
  return parts.length > 1 && !parts[0]?.startsWith('..') ? parts[0] : undefined
}

const realArrows = () => {
  const arrows = new Set<string>()
  for (const file of filesUnder(source)) {
    const from = areaOf(file)
    if (!from || infrastructure.has(from)) continue
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
      const to = areaOf(normalize(join(dirname(file), specifier ?? '')))
      if (to && to !== from && !infrastructure.has(to)) arrows.add(`${from} --> ${to}`)
    }
  }
  return arrows
}

const mapArrows = () => {
  const map = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8')
  const areas = map.match(/subgraph areas[^\n]*\n([\s\S]*?)\n\s*end\n/)?.[1] ?? ''
  return new Set(
    [...areas.matchAll(/^\s*([\w-]+) --> ([\w-]+)\s*$/gm)].map(([, from, to]) => `${from} --> ${to}`),
  )
}

describe('ARCHITECTURE.md', () => {
  it("draws exactly the areas' imports", () => {
    expect([...mapArrows()].sort()).toEqual([...realArrows()].sort())
  })
})
