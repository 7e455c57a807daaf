import { signal } from '@preact/signals'
import { t } from '../i18n.tsx'
import { ErrorLine, Loading } from '../ui.tsx'

type Area = typeof import('./area.tsx')
const area = signal<Area | null>(null)
const failure = signal<unknown>(null)
let isLoading = false

const load = () => {
  if (isLoading) return
  isLoading = true
  import('./area.tsx').then(
    (loaded) => {
      area.value = loaded
    },
    () => {
      isLoading = false
      failure.value = new Error(t('This page could not be loaded. Check your connection and reload.'))
    },
  )
}

/**
 * The organization's pages, fetched the first time one is opened so the studio's first load does
 * not carry them.
 */
export const OrganizationArea = ({ path }: { path: string }) => {
  const loaded = area.value
  if (loaded) return <loaded.OrganizationArea path={path} />
  if (failure.value) return <ErrorLine error={failure.value} />
  load()
  return <Loading />
}
