import { lazy } from '../lazy.tsx'

/**
 * The campaigns area, fetched the first time one of its pages is opened: its pages, the SSE
 * parser and its words stay out of the studio's first load.
 */
export const Campaigns = lazy(() => import('./area.tsx').then((area) => area.CampaignsArea))
