import type { ComponentType } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { ErrorLine, Loading } from './ui.tsx'

/**
 * A component fetched as its own chunk the first time it shows, so the studio's first load does
 * not carry it (as agents/functions/agent-functions.tsx does for the functions editor). A chunk
 * that could not be fetched is asked for again next time.
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
      fetchOnce().then((component) => setLoaded(() => component), setError)
    }, [])
    if (Loaded) return <Loaded {...props} />
    return error ? <ErrorLine error={error} /> : <Loading />
  }
}
