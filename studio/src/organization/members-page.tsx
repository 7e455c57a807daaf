import type { Member, Role } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { session } from '../api.ts'
import { t } from '../i18n.tsx'
import { describedBy, ErrorLine, Field, Loading, problemOf } from '../ui.tsx'
import { inviteMember, listMembers } from './client.ts'
import { MoreButton, roleName, usePages, when } from './format.tsx'
import { refreshSession } from './switcher.tsx'

/** Who may invite whom, as the API decides: owners any role, admins members, members no one. */
const invitableBy: Record<Role, Role[]> = {
  owner: ['member', 'admin', 'owner'],
  admin: ['member'],
  member: [],
}

/** The organization's members and pending invitations, and (for owners and admins) the invite form. */
export const MembersPage = () => {
  const organization = session.value?.organization
  const organizationId = organization?.id ?? ''
  const roles = invitableBy[organization?.role ?? 'member']
  const [members, setMembers] = useState<Member[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const { visible, more } = usePages(members)
  const load = () =>
    listMembers(organizationId).then((rows) => {
      setError(null)
      setMembers(rows)
    }, setError)
  useEffect(() => {
    void load()
    refreshSession()
  }, [organizationId])

  return (
    <section aria-labelledby="members-title">
      <h1 id="members-title">{t('Members')}</h1>
      <ErrorLine error={error} />
      {visible === null ? (
        error ? null : (
          <Loading />
        )
      ) : (
        <ul class="org-list" aria-label={t('Members and invitations')}>
          {visible.map((member) => (
            <li class="org-item">
              <strong>{member.name ?? member.email}</strong>
              {member.name ? <span class="muted"> {member.email}</span> : null}
              <div class="row">
                <span class="badge">{roleName(member.role)}</span>
                <span class={member.status === 'active' ? 'badge' : 'badge pending'}>
                  {member.status === 'invited'
                    ? t('Invitation pending')
                    : member.status === 'expired'
                      ? t('Invitation expired')
                      : t('Active')}
                </span>
                <span class="muted">
                  {member.status === 'invited' && member.expiresAt
                    ? t('Invited {date}, expires {expires}', {
                        date: when(member.createdAt),
                        expires: when(member.expiresAt),
                      })
                    : t('Since {date}', { date: when(member.createdAt) })}
                </span>
              </div>
            </li>
          ))}
        </ul>
      )}
      <MoreButton onMore={more} />
      {roles.length > 0 ? (
        <InviteForm organizationId={organizationId} roles={roles} onInvited={load} />
      ) : (
        <p class="muted">{t('Only owners and admins invite people to the organization.')}</p>
      )}
    </section>
  )
}

const InviteForm = ({
  organizationId,
  roles,
  onInvited,
}: {
  organizationId: string
  roles: Role[]
  onInvited: () => Promise<void>
}) => {
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const [invited, setInvited] = useState<Member | null>(null)
  const submit = async (event: SubmitEvent) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const data = new FormData(form)
    setBusy(true)
    setError(null)
    setInvited(null)
    try {
      const member = await inviteMember(organizationId, {
        email: String(data.get('email') ?? ''),
        role: String(data.get('role') ?? 'member') as Role,
      })
      setInvited(member)
      form.reset()
      await onInvited()
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(false)
    }
  }
  const emailProblem = problemOf(error, 'email')
  const roleProblem = problemOf(error, 'role')
  return (
    <form class="card" onSubmit={submit} aria-labelledby="invite-title">
      <h2 id="invite-title">{t('Invite someone')}</h2>
      <p class="muted" id="invite-how">
        {t(
          'They join when they accept the invitation, signed in to Parley Studio with this email address (or after signing up with it). Parley sends no email: tell them yourself.',
        )}
      </p>
      <Field label={t('Email')} name="email" problem={emailProblem}>
        <input
          {...describedBy('email', { problem: emailProblem })}
          type="email"
          required
          autocomplete="off"
        />
      </Field>
      <Field label={t('Role')} name="role" problem={roleProblem}>
        <select {...describedBy('role', { problem: roleProblem })}>
          {roles.map((role) => (
            <option value={role}>{roleName(role)}</option>
          ))}
        </select>
      </Field>
      {emailProblem || roleProblem ? null : <ErrorLine error={error} />}
      <button type="submit" class="primary" disabled={busy} aria-busy={busy}>
        {busy ? t('Inviting…') : t('Invite')}
      </button>
      {invited ? (
        <p class="ok" role="status">
          {t('{email} is invited as {role}. The invitation waits for them to accept it until {expires}.', {
            email: invited.email,
            role: roleName(invited.role),
            expires: invited.expiresAt ? when(invited.expiresAt) : '',
          })}
        </p>
      ) : null}
    </form>
  )
}
