import { describe, expect, it } from 'vitest'
import { directionOf, en, format, resolveLanguage, voiceStringsFor } from './i18n.ts'
import { sd, ur } from './i18n-rtl.ts'

describe('i18n', () => {
  it('resolves languages by primary subtag and falls back to English', () => {
    expect(resolveLanguage('ur-PK')).toBe('ur')
    expect(resolveLanguage('SD')).toBe('sd')
    expect(resolveLanguage('fr')).toBe('en')
    expect(resolveLanguage(null)).toBe('en')
  })

  it('lays Urdu and Sindhi out right to left', () => {
    expect(directionOf('ur')).toBe('rtl')
    expect(directionOf('sd')).toBe('rtl')
    expect(directionOf('en')).toBe('ltr')
  })

  it('has every string in every language, with the same slots (chat and voice)', () => {
    const slots = (text: string) => [...text.matchAll(/\{\w+\}/g)].map((match) => match[0]).sort()
    const stringsFor = (language: string) => ({ en, ur, sd })[language] ?? en
    for (const lookUp of [stringsFor, voiceStringsFor] as ((language: string) => Record<string, string>)[]) {
      const english = lookUp('en')
      for (const language of ['ur', 'sd']) {
        const strings = lookUp(language)
        for (const key of Object.keys(english)) {
          expect(strings[key], `${language}.${key}`).toBeTruthy()
          expect(slots(strings[key] ?? ''), `${language}.${key}`).toEqual(slots(english[key] ?? ''))
        }
      }
    }
  })

  it('fills slots and leaves unknown ones alone', () => {
    expect(format('Try again in {seconds} s {x}', { seconds: 3 })).toBe('Try again in 3 s {x}')
  })
})
