import { effect, signal } from '@preact/signals'

/**
 * The studio's words: English in the source, Urdu and Sindhi in catalogues keyed by the English
 * (`i18n/ur*.ts`, `i18n/sd*.ts`: one file per area of the studio, merged), each language loaded
 * only when chosen so the first load stays small. Every
 * literal phrase given to `t` in the source must have both translations (studio/test/i18n.test.ts reads the
 * source to check). Urdu and Sindhi lay the page out right to left.
 */
export const LANGUAGES = [
  { id: 'en', name: 'English' },
  { id: 'ur', name: 'اردو' },
  { id: 'sd', name: 'سنڌي' },
] as const
export type Language = (typeof LANGUAGES)[number]['id']
type Catalogue = Record<string, string>

const STORAGE_KEY = 'parley.studio.language'
const RIGHT_TO_LEFT: ReadonlySet<Language> = new Set(['ur', 'sd'])

const stored = (): Language => {
  const value = localStorage.getItem(STORAGE_KEY)
  return value === 'ur' || value === 'sd' ? value : 'en'
}

export const language = signal<Language>(stored())
const catalogues = signal<Partial<Record<Language, Catalogue>>>({})

type Part = { default: Catalogue }
const parts: Record<'ur' | 'sd', Record<string, () => Promise<Part>>> = {
  ur: import.meta.glob<Part>('./i18n/ur*.ts'),
  sd: import.meta.glob<Part>('./i18n/sd*.ts'),
}

const load = (chosen: Language) => {
  if (chosen === 'en' || catalogues.peek()[chosen]) return
  void Promise.all(Object.values(parts[chosen]).map((part) => part())).then(
    (loaded) => {
      const merged = Object.assign({}, ...loaded.map((part) => part.default)) as Catalogue
      catalogues.value = { ...catalogues.peek(), [chosen]: merged }
    },
    () => undefined, // English stays: better than nothing when the chunk cannot be fetched.
  )
}

// <html lang dir> follow the choice before the first render; the catalogue follows when it arrives.
effect(() => {
  const chosen = language.value
  document.documentElement.lang = chosen
  document.documentElement.dir = RIGHT_TO_LEFT.has(chosen) ? 'rtl' : 'ltr'
  if (chosen === 'en') localStorage.removeItem(STORAGE_KEY)
  else localStorage.setItem(STORAGE_KEY, chosen)
  load(chosen)
})

/**
 * The words for `english` in the chosen language, with `{name}` slots filled from `values`. A
 * reactive read: components render again when the catalogue arrives or the language changes.
 */
export const t = (english: string, values?: Record<string, string | number>) => {
  const chosen = language.value
  const template = (chosen === 'en' ? undefined : catalogues.value[chosen]?.[english]) ?? english
  return values
    ? template.replace(/\{(\w+)\}/g, (slot, name: string) => (name in values ? String(values[name]) : slot))
    : template
}

export const LanguagePicker = () => (
  <label class="language">
    <span>{t('Language')}</span>
    <select
      value={language.value}
      onChange={(event) => {
        language.value = event.currentTarget.value as Language
      }}
    >
      {LANGUAGES.map((option) => (
        <option value={option.id} lang={option.id}>
          {option.name}
        </option>
      ))}
    </select>
  </label>
)
