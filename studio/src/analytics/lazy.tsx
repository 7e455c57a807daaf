import { lazy } from '../lazy.tsx'

/** The analytics page, fetched the first time it opens: uPlot and its styles load only here. */
export const Analytics = lazy(() => import('./page.tsx').then((page) => page.AnalyticsPage))
