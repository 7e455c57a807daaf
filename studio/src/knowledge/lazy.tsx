import { lazy } from '../lazy.tsx'

/** The knowledge page, fetched the first time it is opened. */
export const Knowledge = lazy(() => import('./page.tsx').then((page) => page.KnowledgePage))
