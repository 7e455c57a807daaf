import type { ComponentType } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { ErrorLine, Loading } from '../../ui.tsx'
import type { FunctionsPanelProps } from './functions-panel.tsx'

let panel: Promise<ComponentType<FunctionsPanelProps>> | null = null
const loadPanel = () => {
  panel ??= import('./functions-panel.tsx').then(
    (module) => module.FunctionsPanel,
    (error: unknown) => {
      panel = null
      throw error
    },
  )
  return panel
}

/**
 * The agent page's custom functions, fetched as their own chunk when an agent page opens: the
 * studio's first load does not carry the editor, its forms or the test call.
 */
export const AgentFunctions = (props: FunctionsPanelProps) => {
  const [Panel, setPanel] = useState<ComponentType<FunctionsPanelProps> | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    loadPanel().then((loaded) => setPanel(() => loaded), setError)
  }, [])
  if (Panel) return <Panel {...props} />
  return error ? <ErrorLine error={error} /> : <Loading />
}
