import { lazy } from '../lazy.tsx'

/**
 * The organization's pages, fetched the first time one is opened so the studio's first load does
 * not carry them.
 */
export const OrganizationArea = lazy(() => import('./area.tsx').then((area) => area.OrganizationArea))
