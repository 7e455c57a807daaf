import { AgentPage } from './agents/agent-page.tsx'
import { AgentsPage } from './agents/agents-page.tsx'
import { Analytics } from './analytics/lazy.tsx'
import { session, signOut } from './api.ts'
import { AuthPage } from './auth.tsx'
import { CallPage, CallsPage } from './calls.tsx'
import { Campaigns } from './campaigns/lazy.tsx'
import { ConversationPage, ConversationsPage } from './conversations.tsx'
import { LanguagePicker, t } from './i18n.tsx'
import { InstallPage } from './install.tsx'
import { Knowledge } from './knowledge/lazy.tsx'
import { OrganizationArea } from './organization/lazy.tsx'
import { JoinedNotice, OrganizationSwitcher, PendingInvitations } from './organization/switcher.tsx'
import { linkProps, route, useMainRegion } from './router.ts'
import { ThemePicker } from './theme.tsx'

/** The studio's sections, in the order the navigation shows them (labels go through t()). */
const sections = () => [
  { path: '/agents', label: t('Agents') },
  { path: '/install', label: t('Install') },
  { path: '/conversations', label: t('Conversations') },
  { path: '/calls', label: t('Calls') },
  { path: '/analytics', label: t('Analytics') },
  { path: '/campaigns', label: t('Campaigns') },
  { path: '/knowledge', label: t('Knowledge') },
  { path: '/settings/organization/members', label: t('Organization') },
]

const Page = () => {
  const path = route.value
  const agent = path.match(/^\/agents\/([^/]+)$/)
  if (agent?.[1]) return <AgentPage id={agent[1]} />
  const conversation = path.match(/^\/conversations\/([^/]+)$/)
  if (conversation?.[1]) return <ConversationPage id={conversation[1]} />
  const call = path.match(/^\/calls\/([^/]+)$/)
  if (call?.[1]) return <CallPage id={call[1]} />
  if (path === '/calls') return <CallsPage />
  if (path === '/analytics') return <Analytics />
  if (path.startsWith('/install')) return <InstallPage />
  if (path === '/campaigns' || path.startsWith('/campaigns/')) return <Campaigns path={path} />
  if (path === '/conversations') return <ConversationsPage />
  if (path === '/knowledge') return <Knowledge />
  if (path.startsWith('/settings/organization')) return <OrganizationArea path={path} />
  return <AgentsPage />
}

/** The studio: sign-in until there is a session, then the sections of the organization. */
export const App = () => {
  const current = session.value
  const main = useMainRegion()
  if (!current) return <AuthPage />
  return (
    <div class="shell">
      <header>
        <strong>Parley Studio</strong>
        <OrganizationSwitcher />
        <LanguagePicker />
        <ThemePicker />
        <button type="button" class="small" onClick={signOut}>
          {t('Sign out')}
        </button>
      </header>
      <PendingInvitations />
      <JoinedNotice />
      <nav aria-label={t('Studio')}>
        {sections().map((section) => (
          <a
            {...linkProps(section.path)}
            aria-current={
              route.value.startsWith(section.path.split('/').slice(0, 2).join('/')) ? 'page' : undefined
            }
          >
            {section.label}
          </a>
        ))}
      </nav>
      <main key={current.organization.id} ref={main} tabIndex={-1}>
        <Page />
      </main>
    </div>
  )
}
