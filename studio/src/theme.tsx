import { effect, signal } from '@preact/signals'
import { t } from './i18n.tsx'

type Theme = 'system' | 'light' | 'dark'
const STORAGE_KEY = 'parley.studio.theme'
const themes = (): Array<{ id: Theme; name: string }> => [
  { id: 'system', name: t('As the system') },
  { id: 'light', name: t('Light') },
  { id: 'dark', name: t('Dark') },
]

const stored = (): Theme => {
  const value = localStorage.getItem(STORAGE_KEY)
  return value === 'light' || value === 'dark' ? value : 'system'
}

/** The chosen scheme; 'system' follows prefers-color-scheme. Kept in the browser across visits. */
export const theme = signal<Theme>(stored())

// Set on <html> before the first render, so a dark choice never flashes light.
effect(() => {
  const root = document.documentElement
  if (theme.value === 'system') {
    delete root.dataset.theme
    localStorage.removeItem(STORAGE_KEY)
  } else {
    root.dataset.theme = theme.value
    localStorage.setItem(STORAGE_KEY, theme.value)
  }
})

export const ThemePicker = () => (
  <label class="theme">
    <span>{t('Theme')}</span>
    <select
      value={theme.value}
      onChange={(event) => {
        theme.value = event.currentTarget.value as Theme
      }}
    >
      {themes().map((option) => (
        <option value={option.id}>{option.name}</option>
      ))}
    </select>
  </label>
)
