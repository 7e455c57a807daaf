import type { ComponentType } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { t } from './i18n.tsx'
import { ErrorLine, Loading } from './ui.tsx'

/**
 * A component fetched as its own chunk the first time it shows, so the studio's first load does
 * not carry it (an agent's functions, Try it's widget, the customiser, the campaigns and
 * organization areas). A chunk that could not be fetched is asked for again next time, and says so
 * in words meanwhile.
 */
export const lazy = <Props extends object>(load: () => Promise<ComponentType<Props>>) => {
  let loading: Promise<ComponentType<Props>> | null = null
  const fetchOnce = () => {
    loading ??= load().catch((error: unknown) => {
      loading = null
      throw error
    })
    return loading
  }
  return (props: Props) => {
    const [Loaded, setLoaded] = useState<ComponentType<Props> | null>(null)
    const [error, setError] = useState<unknown>(null)
    useEffect(() => {
      fetchOnce().then(
        (component) => setLoaded(() => component),
        () => setError(new Error(t('This page could not be loaded. Check your connection and reload.'))),
      )
    }, [])
    if (Loaded) return <Loaded {...props} />
    return error ? <ErrorLine error={error} /> : <Loading />
  }
}
