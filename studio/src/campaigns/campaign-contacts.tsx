import type { BatchContactStatus } from '@parley/shared'
import { t } from '../i18n.tsx'
import { when } from '../records/format.tsx'
import type { CampaignModel } from './campaign-model.ts'
import { Pager } from './parts.tsx'
import { CONTACT_STATUSES, contactStatusName, outcomeName } from './words.ts'

/** Each contact's outcome: its status, each try with its outcome, the last error, a page at a time. */
export const CampaignContacts = ({ model }: { model: CampaignModel }) => {
  const contacts = model.contacts.value
  const status = model.statusFilter.value
  return (
    <section aria-labelledby="contacts-title">
      <div class="row">
        <h2 id="contacts-title">{t('Contacts')}</h2>
        <label class="theme">
          <span>{t('Show')}</span>
          <select
            value={status ?? ''}
            onChange={(event) =>
              model.showContacts({
                page: 1,
                status: (event.currentTarget.value || undefined) as BatchContactStatus | undefined,
              })
            }
          >
            <option value="">{t('All')}</option>
            {CONTACT_STATUSES.map((value) => (
              <option value={value}>{contactStatusName(value)}</option>
            ))}
          </select>
        </label>
      </div>
      {contacts === null ? null : contacts.data.length === 0 ? (
        <p class="empty">{t('No contacts here.')}</p>
      ) : (
        <div class="table-fit">
          <table class="contacts">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">{t('Phone')}</th>
                <th scope="col">{t('Name')}</th>
                <th scope="col">{t('Status')}</th>
                <th scope="col">{t('Tries')}</th>
                <th scope="col">{t('Last call')}</th>
              </tr>
            </thead>
            <tbody>
              {contacts.data.map((contact) => (
                <tr>
                  <td>{contact.position + 1}</td>
                  <td dir="ltr">{contact.phone}</td>
                  <td>{contact.name ?? '—'}</td>
                  <td class={`contact-${contact.status}`}>{contactStatusName(contact.status)}</td>
                  <td>
                    {contact.attempts}
                    {contact.tries.length > 0 ? (
                      <ol class="tries">
                        {contact.tries.map((tried) => (
                          <li>
                            {outcomeName(tried.outcome)}
                            {tried.sipStatus && tried.sipStatus !== 200 ? ` (SIP ${tried.sipStatus})` : ''} ·{' '}
                            {when(tried.startedAt)}
                          </li>
                        ))}
                      </ol>
                    ) : null}
                  </td>
                  <td>
                    {outcomeName(contact.lastOutcome)}
                    {contact.lastError ? <small class="muted"> · {contact.lastError}</small> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {contacts ? (
        <Pager
          page={model.contactsPage.value}
          hasNext={contacts.pagination.hasNext}
          total={contacts.pagination.total}
          onPage={(page) => model.showContacts({ page, status })}
          label={t('Pages of contacts')}
        />
      ) : null}
    </section>
  )
}
