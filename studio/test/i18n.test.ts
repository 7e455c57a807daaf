import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/**
 * Every English phrase the studio passes to t() as a literal has its Urdu and Sindhi words, every
 * `{slot}` survives translation, and the catalogues hold nothing the source no longer says.
 */
const source = fileURLToPath(new URL('../src', import.meta.url))
const files = (readdirSync(source, { recursive: true }) as string[])
  .filter((name) => name.endsWith('.tsx') || name.endsWith('.ts'))
  .filter((name) => !name.startsWith('i18n/'))
const phrases = new Set<string>()
for (const name of files) {
  const text = readFileSync(join(source, name), 'utf8')
  for (const match of text.matchAll(/\bt\(\s*(['"`])((?:\\.|(?!\1).)*)\1/g)) {
    phrases.add((match[2] ?? '').replace(/\\(['"`\\])/g, '$1'))
  }
}
/** A language's catalogue as the studio merges it: every i18n/<language>*.ts file. */
const catalogueOf = async (language: 'ur' | 'sd') => {
  const parts = readdirSync(join(source, 'i18n')).filter((name) => name.startsWith(language))
  const loaded = await Promise.all(
    parts.map(async (name) => (await import(join(source, 'i18n', name))).default as Record<string, string>),
  )
  return Object.assign({}, ...loaded) as Record<string, string>
}
const ur = await catalogueOf('ur')
const sd = await catalogueOf('sd')
const slots = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort()

describe('the studio in Urdu and Sindhi', () => {
  it('finds the phrases', () => {
    expect(phrases.size).toBeGreaterThan(0)
  })
  for (const [name, catalogue] of [
    ['ur', ur],
    ['sd', sd],
  ] as const) {
    it(`${name} translates every phrase, keeping its slots`, () => {
      const missing = [...phrases].filter((phrase) => !catalogue[phrase])
      expect(missing).toEqual([])
      const broken = [...phrases].filter(
        (phrase) => slots(phrase).join() !== slots(catalogue[phrase] ?? '').join(),
      )
      expect(broken).toEqual([])
    })
    it(`${name} holds only phrases the studio says`, () => {
      expect(Object.keys(catalogue).filter((phrase) => !phrases.has(phrase))).toEqual([])
    })
  }
})
