import type { knowledgeLanguages } from '@parley/shared'

type KnowledgeLanguage = (typeof knowledgeLanguages)[number]

/**
 * The PostgreSQL text search configuration of each language (snowball stemmers that ship with
 * PostgreSQL and PGlite). Urdu and Sindhi have none: `simple` lower-cases and splits only.
 */
const configs: Record<KnowledgeLanguage, string> = {
  simple: 'simple',
  en: 'english',
  de: 'german',
  fr: 'french',
  es: 'spanish',
  it: 'italian',
  pt: 'portuguese',
  nl: 'dutch',
  sv: 'swedish',
  da: 'danish',
  no: 'norwegian',
  fi: 'finnish',
  ru: 'russian',
  tr: 'turkish',
  ur: 'simple',
  sd: 'simple',
}

export const textSearchConfigOf = (language: string) => configs[language as KnowledgeLanguage] ?? 'simple'
