import { CampaignPage } from './campaign-page.tsx'
import { CampaignsPage } from './campaigns-page.tsx'
import { DoNotCallPage } from './do-not-call-page.tsx'
import { NewCampaignPage } from './new-campaign-page.tsx'
import { PhoneNumbersPage } from './phone-numbers-page.tsx'

/** The campaigns area's pages by path (loaded on first visit: see lazy.tsx). */
export const CampaignsArea = ({ path }: { path: string }) => {
  if (path === '/campaigns/new') return <NewCampaignPage />
  if (path === '/campaigns/phone-numbers') return <PhoneNumbersPage />
  if (path === '/campaigns/do-not-call') return <DoNotCallPage />
  const job = path.match(/^\/campaigns\/([^/]+)$/)
  if (job?.[1]) return <CampaignPage id={decodeURIComponent(job[1])} />
  return <CampaignsPage />
}
