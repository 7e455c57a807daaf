import { lazy } from '../../lazy.tsx'

/**
 * The agent page's custom functions, fetched as their own chunk when an agent page opens: the
 * studio's first load does not carry the editor, its forms or the test call.
 */
export const AgentFunctions = lazy(() =>
  import('./functions-panel.tsx').then((panel) => panel.FunctionsPanel),
)
