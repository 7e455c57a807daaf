import type { Invitation, InvitationList, Session } from '@parley/shared'
import { effect, signal } from '@preact/signals'
import { useEffect, useState } from 'preact/hooks'
import { api, session, signIn } from '../api.ts'
import { t } from '../i18n.tsx'
import { navigate, route } from '../router.ts'
import { ErrorLine } from '../ui.tsx'
import { roleName } from './format.tsx'

/**
 * The header's organization: its name and the user's role in it, and a choice of another when
 * the user belongs to several (POST /api/auth/switch-organization issues a token for it). This is
 * on the first load, so it stays small; the organization's pages load lazily.
 */
export const OrganizationSwitcher = () => {
  const current = session.value
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  if (!current) return null
  const role = <span class="role">{roleName(current.organization.role)}</span>
  if (current.organizations.length < 2)
    return (
      <span class="muted">
        {current.organization.name} · {role}
      </span>
    )
  const choose = async (organizationId: string) => {
    setBusy(true)
    setError(null)
    try {
      signIn(
        await api<Session>('/api/auth/switch-organization', { method: 'POST', json: { organizationId } }),
      )
      joined.value = [] // the notice has been acted on
      // A record of the organization left behind is not in this one: back to its list.
      const detail = route.value.match(/^\/(agents|conversations)\/./)
      if (detail) navigate(`/${detail[1]}`)
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(false)
    }
  }
  return (
    <div class="muted org-switch">
      <label for="organization-switch">{t('Organization')}</label>
      <select
        id="organization-switch"
        value={current.organization.id}
        disabled={busy}
        aria-busy={busy}
        onChange={(event) => void choose(event.currentTarget.value)}
      >
        {current.organizations.map((organization) => (
          <option value={organization.id}>{organization.name}</option>
        ))}
      </select>
      <span class="org-role">· {role}</span>
      {busy ? <span role="status"> {t('Switching…')}</span> : null}
      <ErrorLine error={error} />
    </div>
  )
}

/**
 * The organizations of the session as they are now, once per page load: a membership granted
 * since the token was issued shows without signing in again. The members page asks (every other
 * page keeps to its own data's requests); signing in always answers them fresh.
 */
let isRefreshed = false
export const refreshSession = () => {
  if (isRefreshed) return
  isRefreshed = true
  api<Omit<Session, 'token' | 'expiresAt'>>('/api/auth/session').then(
    (fresh) => {
      const stored = session.peek()
      const next = stored ? { ...stored, ...fresh } : null
      if (next && JSON.stringify(next) !== JSON.stringify(stored)) signIn(next)
    },
    () => undefined,
  )
}

/** Names of organizations the user joined since this browser last saw their session. */
const joined = signal<string[]>([])
const KNOWN_KEY = 'parley.studio.organizations'
const NEW_ACCOUNT_MS = 10 * 60_000

effect(() => {
  const current = session.value
  if (!current) return
  const key = `${KNOWN_KEY}.${current.user.id}`
  let known: string[] | null = null
  try {
    known = JSON.parse(localStorage.getItem(key) ?? 'null') as string[] | null
  } catch {
    known = null
  }
  // First sight of the user in this browser: a new account has only its own organization; an
  // older one is only being seen here for the first time.
  const isNewAccount = Date.now() - Date.parse(current.user.createdAt) < NEW_ACCOUNT_MS
  const baseline =
    known ?? (isNewAccount ? [current.organization.id] : current.organizations.map((each) => each.id))
  const fresh = current.organizations.filter((each) => !baseline.includes(each.id)).map((each) => each.name)
  if (fresh.length > 0) joined.value = [...joined.peek(), ...fresh]
  localStorage.setItem(key, JSON.stringify(current.organizations.map((each) => each.id)))
})

/** "You joined X": once, after an invitation was accepted, until dismissed. */
export const JoinedNotice = () =>
  joined.value.length > 0 ? (
    <div class="notice row" role="status">
      <span>
        {t('You joined {names}. Choose it in Organization above.', { names: joined.value.join(', ') })}
      </span>
      <button type="button" class="small" onClick={() => (joined.value = [])}>
        {t('Dismiss')}
      </button>
    </div>
  ) : null

/**
 * Invitations waiting for the signed-in account (addressed to its email): each is joined only by
 * accepting it here, or declined. Accepting answers the session anew, and the "You joined" notice
 * follows from it.
 */
export const PendingInvitations = () => {
  const userId = session.value?.user.id
  const [invitations, setInvitations] = useState<Invitation[]>([])
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState<string | null>(null)
  useEffect(() => {
    if (!userId) return
    api<InvitationList>('/api/invitations').then(
      (list) => setInvitations(list.invitations),
      () => undefined,
    )
  }, [userId])
  const answer = async (invitation: Invitation, action: 'accept' | 'decline') => {
    setBusy(invitation.id)
    setError(null)
    try {
      const path = `/api/invitations/${encodeURIComponent(invitation.id)}/${action}`
      if (action === 'accept') signIn(await api<Session>(path, { method: 'POST' }))
      else await api(path, { method: 'POST' })
      setInvitations((shown) => shown.filter((each) => each.id !== invitation.id))
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(null)
    }
  }
  if (invitations.length === 0) return null
  return (
    <section class="notice" aria-label={t('Invitations')}>
      {invitations.map((invitation) => (
        <div class="row invitation">
          <span>
            {t('{name} invited you to {organization} as {role}.', {
              name: invitation.invitedBy ?? t('Someone'),
              organization: invitation.organizationName,
              role: roleName(invitation.role),
            })}
          </span>
          <button
            type="button"
            class="small primary"
            disabled={busy !== null}
            aria-busy={busy === invitation.id}
            onClick={() => void answer(invitation, 'accept')}
          >
            {t('Accept invitation to {organization}', { organization: invitation.organizationName })}
          </button>
          <button
            type="button"
            class="small"
            disabled={busy !== null}
            onClick={() => void answer(invitation, 'decline')}
          >
            {t('Decline')}
          </button>
        </div>
      ))}
      <ErrorLine error={error} />
    </section>
  )
}
