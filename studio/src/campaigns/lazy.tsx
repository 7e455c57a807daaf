import { useEffect, useState } from 'preact/hooks'
import { ErrorLine, Loading } from '../ui.tsx'

type Area = typeof import('./area.tsx')

let loading: Promise<Area> | null = null

/**
 * The campaigns area, fetched the first time one of its pages is opened: its pages, the SSE
 * parser and its words stay out of the studio's first load.
 */
export const Campaigns = ({ path }: { path: string }) => {
  const [area, setArea] = useState<Area | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    loading ??= import('./area.tsx')
    loading.then(setArea, (caught: unknown) => {
      loading = null
      setError(caught)
    })
  }, [])
  if (!area) return error ? <ErrorLine error={error} /> : <Loading />
  return <area.CampaignsArea path={path} />
}
