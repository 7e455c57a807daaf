import type { AgentListItem, PhoneNumber } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { session } from '../api.ts'
import { t } from '../i18n.tsx'
import { ErrorLine, Loading } from '../ui.tsx'
import { deletePhoneNumber, listPhoneNumbers, listVoiceAgents, type Page } from './client.ts'
import { CampaignTabs, Pager } from './parts.tsx'
import { AddPhoneNumber, EditPhoneNumber } from './phone-number-forms.tsx'

/** Numbers place calls that cost money: the API lets owners and admins change them, members read. */
const canManage = () => {
  const role = session.value?.organization.role
  return role === 'owner' || role === 'admin'
}

type Notice = { kind: 'added' } | { kind: 'saved' | 'deleted'; number: string }

const wordsOf = (notice: Notice) => {
  if (notice.kind === 'added') return t('Number added.')
  if (notice.kind === 'saved') return t('{number} saved.', { number: notice.number })
  return t('{number} deleted.', { number: notice.number })
}

/** The numbers campaigns call from: a page at a time, added, changed and deleted by managers. */
export const PhoneNumbersPage = () => {
  const [numbers, setNumbers] = useState<Page<PhoneNumber> | null>(null)
  const [agents, setAgents] = useState<AgentListItem[]>([])
  const [page, setPage] = useState(1)
  const [editing, setEditing] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)
  // What just happened, put in words when shown (so a change of language changes it too).
  const [notice, setNotice] = useState<Notice | null>(null)
  const load = (at: number) => {
    setError(null)
    return listPhoneNumbers(at).then((loaded) => {
      setNumbers(loaded)
      setPage(at)
    }, setError)
  }
  useEffect(() => {
    void load(1)
    listVoiceAgents().then(setAgents, setError)
  }, [])

  const agentName = (agentId: string | null) =>
    agentId ? (agents.find((agent) => agent.id === agentId)?.name ?? agentId) : t('No agent')
  const remove = async (phoneNumber: PhoneNumber) => {
    if (
      !confirm(
        t('Delete {number}? Campaigns calling from it stop with a reason.', { number: phoneNumber.number }),
      )
    )
      return
    setError(null)
    try {
      await deletePhoneNumber(phoneNumber.id)
      await load(numbers?.data.length === 1 && page > 1 ? page - 1 : page)
      setNotice({ kind: 'deleted', number: phoneNumber.number })
    } catch (caught) {
      setError(caught)
    }
  }
  const isManager = canManage()
  return (
    <section aria-labelledby="phone-numbers-title">
      <CampaignTabs />
      <h1 id="phone-numbers-title">{t('Phone numbers')}</h1>
      {isManager ? (
        <AddPhoneNumber
          agents={agents}
          onAdded={async () => {
            await load(1)
            setNotice({ kind: 'added' })
          }}
        />
      ) : (
        <p class="muted">{t('Owners and admins add and change numbers; ask yours for a new one.')}</p>
      )}
      <p class="ok" role="status">
        {notice ? wordsOf(notice) : ''}
      </p>
      <ErrorLine error={error} />
      {numbers === null ? (
        error ? null : (
          <Loading />
        )
      ) : numbers.data.length === 0 ? (
        <p class="empty">{t('No phone numbers yet. Add the number your campaigns will call from.')}</p>
      ) : (
        <ul class="numbers">
          {numbers.data.map((phoneNumber) =>
            editing === phoneNumber.id ? (
              <li>
                <EditPhoneNumber
                  phoneNumber={phoneNumber}
                  agents={agents}
                  onDone={async (saved) => {
                    if (saved) await load(page)
                    setEditing(null)
                    if (saved) setNotice({ kind: 'saved', number: phoneNumber.number })
                  }}
                />
              </li>
            ) : (
              <li class="number-row">
                <span>
                  <strong dir="ltr">{phoneNumber.number}</strong>{' '}
                  {phoneNumber.label ? phoneNumber.label : null}
                  <br />
                  <span class="muted">
                    {t('Calls with: {agent}', { agent: agentName(phoneNumber.outboundAgentId) })}
                  </span>
                  {phoneNumber.inbound ? (
                    <>
                      <br />
                      <span class="muted">
                        {t('Answered by: {agent}', { agent: agentName(phoneNumber.inboundAgentId) })}
                        {' · '}
                        {phoneNumber.inbound.status === 'synced'
                          ? t('LiveKit has its trunk and rule')
                          : phoneNumber.inbound.status === 'pending'
                            ? t('LiveKit trunk and rule not made yet')
                            : t('LiveKit trunk or rule failed: {error}', {
                                error: phoneNumber.inbound.error ?? '',
                              })}
                      </span>
                    </>
                  ) : null}
                </span>
                {isManager ? (
                  <span class="row">
                    <button
                      type="button"
                      class="small"
                      aria-label={t('Change {number}', { number: phoneNumber.number })}
                      onClick={() => setEditing(phoneNumber.id)}
                    >
                      {t('Change')}
                    </button>
                    <button
                      type="button"
                      class="small danger"
                      aria-label={t('Delete {number}', { number: phoneNumber.number })}
                      onClick={() => remove(phoneNumber)}
                    >
                      {t('Delete')}
                    </button>
                  </span>
                ) : null}
              </li>
            ),
          )}
        </ul>
      )}
      {numbers ? (
        <Pager
          page={page}
          hasNext={numbers.pagination.hasNext}
          total={numbers.pagination.total}
          onPage={(at) => void load(at)}
          label={t('Pages of phone numbers')}
        />
      ) : null}
    </section>
  )
}
