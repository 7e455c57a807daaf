import { t } from '../i18n.tsx'
import { linkProps } from '../router.ts'
import { ProviderKeysPage } from '../settings.tsx'
import { PROVIDER_KEYS_PATH } from '../ui.tsx'
import { ApiKeysPage } from './api-keys-page.tsx'
import { AuditPage } from './audit-page.tsx'
import { CreditsPage } from './credits-page.tsx'
import { IdentityPage } from './identity-page.tsx'
import { MembersPage } from './members-page.tsx'
import { RetentionPage } from './retention-page.tsx'
import { WebhooksPage } from './webhooks-page.tsx'

/** The organization's pages, in the order the sub-navigation shows them. */
const pages = () => [
  { path: '/settings/organization/members', label: t('Members'), Page: MembersPage },
  { path: '/settings/organization/api-keys', label: t('API keys'), Page: ApiKeysPage },
  { path: '/settings/organization/credits', label: t('Credits'), Page: CreditsPage },
  { path: '/settings/organization/webhooks', label: t('Webhook deliveries'), Page: WebhooksPage },
  { path: '/settings/organization/identity', label: t('Identity verification'), Page: IdentityPage },
  { path: PROVIDER_KEYS_PATH, label: t('Provider keys'), Page: ProviderKeysPage },
  { path: '/settings/organization/retention', label: t('Data retention'), Page: RetentionPage },
  { path: '/settings/organization/audit-log', label: t('Audit log'), Page: AuditPage },
]

/** Settings of the organization (below /settings/organization): its sub-navigation and the page asked for. */
export const OrganizationArea = ({ path }: { path: string }) => {
  const all = pages()
  const current = all.find((page) => path === page.path) ?? all[0]
  if (!current) return null
  return (
    <>
      <nav class="subnav" aria-label={t('Organization')}>
        {all.map((page) => (
          <a {...linkProps(page.path)} aria-current={page === current ? 'page' : undefined}>
            {page.label}
          </a>
        ))}
      </nav>
      <current.Page />
    </>
  )
}
