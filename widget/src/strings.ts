import { signal } from '@preact/signals'
import { importChunk } from './chunks.ts'
import { en, type Language, type Strings } from './i18n.ts'

/** The words loaded so far: English at once, Urdu and Sindhi once their chunk has arrived. */
const loaded = signal<Partial<Record<Language, Strings>>>({ en })
let loading: Promise<void> | undefined

/**
 * Fetches the Urdu and Sindhi words, once per page, from beside the widget's script (like every
 * chunk: chunks.ts). Should that fail, the widget speaks English rather than nothing.
 */
export const loadStrings = (baseUrl: string) => {
  loading ??= importChunk<Record<'ur' | 'sd', Strings>>(__PARLEY_LANG_CHUNK__, baseUrl)
    .catch(() => ({ ur: en, sd: en }))
    .then((pack) => {
      loaded.value = { en, ...pack }
    })
  return loading
}

/** The words of `language`; undefined until they are loaded (a reactive read: the UI renders again then). */
export const stringsFor = (language: Language): Strings | undefined => loaded.value[language]
