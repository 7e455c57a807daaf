import { readFileSync } from 'node:fs'
import semver from 'semver'
import { describe, expect, it } from 'vitest'

/**
 * The README's Node floor is true: every package the lock file installs accepts the floor the
 * root package.json declares, so `npm install` on it warns no EBADENGINE.
 */
const read = (path: string) => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'))

describe('the Node floor', () => {
  it('is accepted by every installed package', () => {
    const floor = semver.minVersion(read('package.json').engines.node)?.version ?? ''
    expect(floor).toBe('20.19.0')
    const packages = read('package-lock.json').packages as Record<string, { engines?: { node?: string } }>
    const refusing = Object.entries(packages)
      .filter(([, entry]) => typeof entry.engines?.node === 'string')
      .filter(([, entry]) => !semver.satisfies(floor, entry.engines?.node ?? '*'))
      .map(([path, entry]) => `${path}: ${entry.engines?.node}`)
    expect(refusing).toEqual([])
  })

  it('is the one the README states', () => {
    expect(readFileSync(new URL('../../README.md', import.meta.url), 'utf8')).toContain('Node 20.19+')
  })
})
