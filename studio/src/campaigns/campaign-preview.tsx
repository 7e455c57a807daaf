import type { BatchPreview } from '@parley/shared'
import { t } from '../i18n.tsx'
import { usd, when } from '../records/format.tsx'
import { dayName, skipReasonName } from './words.ts'

/** The custom fields of a contact in one cell ("plan: gold · due: May"), so a phone fits the table. */
const fieldsText = (fields: Record<string, unknown>) =>
  Object.entries(fields)
    .map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' · ')

const Schedule = ({ schedule }: { schedule: BatchPreview['schedule'] }) => (
  <>
    <Start schedule={schedule} />
    {schedule.callingWindow ? (
      <p>
        {t('Calls only from {start} to {end} on {days}, in each contact’s own time zone', {
          start: schedule.callingWindow.start,
          end: schedule.callingWindow.end,
          days: schedule.callingWindow.days.map(dayName).join(', '),
        })}
      </p>
    ) : null}
  </>
)

const Start = ({ schedule }: { schedule: BatchPreview['schedule'] }) =>
  schedule.scheduledStartTime && schedule.localStartTime ? (
    <p>
      {t('Starts {time} in {timezone}', {
        time: schedule.localStartTime.replace('T', ' '),
        timezone: schedule.timezone,
      })}{' '}
      <span class="muted">({t('{time} where you are', { time: when(schedule.scheduledStartTime) })})</span>
    </p>
  ) : (
    <p>{t('Starts as soon as it is created')}</p>
  )

const Estimate = ({ preview }: { preview: BatchPreview }) => {
  const { estimate } = preview
  return (
    <div>
      <p>
        <strong>{t('Estimated cost: {cost}', { cost: usd(estimate.estimatedCost) })}</strong>{' '}
        <span class="muted">
          {t('{calls} × {minutes} min a call × {price} a minute', {
            calls: preview.validContacts,
            minutes: estimate.minutesPerCall,
            price: usd(estimate.usdPerMinute),
          })}
        </span>
      </p>
      <p>
        {t('Takes {duration} at {limit} calls at a time', {
          duration: estimate.estimatedDuration,
          limit: preview.concurrentCallLimit,
        })}
      </p>
      <p class={estimate.hasEnoughCredits ? 'muted' : 'error'}>
        {estimate.hasEnoughCredits
          ? t('Your balance: {balance}', { balance: usd(estimate.balance) })
          : t('Your balance ({balance}) does not cover this estimate: add credits before creating it.', {
              balance: usd(estimate.balance),
            })}
      </p>
    </div>
  )
}

/** What the preview route answered: who is called, which rows were skipped and why, cost, start. */
export const CampaignPreview = ({ preview }: { preview: BatchPreview }) => {
  const { skipped } = preview
  return (
    <section class="card preview" aria-labelledby="preview-title">
      <h2 id="preview-title">{t('Preview')}</h2>
      <p>
        {preview.validContacts === 1
          ? t('1 contact will be called from {number} by {agent}.', {
              number: preview.phoneNumber.number,
              agent: preview.agent.name,
            })
          : t('{count} contacts will be called from {number} by {agent}.', {
              count: preview.validContacts,
              number: preview.phoneNumber.number,
              agent: preview.agent.name,
            })}
      </p>
      <Estimate preview={preview} />
      <Schedule schedule={preview.schedule} />
      <h3 id="preview-contacts">
        {preview.contacts.length < preview.validContacts
          ? t('The first {shown} of {count} contacts', {
              shown: preview.contacts.length,
              count: preview.validContacts,
            })
          : t('Contacts')}
      </h3>
      <div class="table-fit">
        <table>
          <thead>
            <tr>
              <th scope="col">{t('Row')}</th>
              <th scope="col">{t('Phone')}</th>
              <th scope="col">{t('Name')}</th>
              <th scope="col">{t('Other fields')}</th>
            </tr>
          </thead>
          <tbody>
            {preview.contacts.map((contact) => (
              <tr>
                <td>{contact.row}</td>
                <td dir="ltr">{contact.phone}</td>
                <td>{contact.name ?? '—'}</td>
                <td>{fieldsText(contact.fields)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3 id="preview-skipped">
        {skipped.total === 0
          ? t('No rows skipped')
          : skipped.total === 1
            ? t('1 row skipped')
            : t('{count} rows skipped', { count: skipped.total })}
      </h3>
      {skipped.total > 0 ? (
        <div class="table-fit">
          <table class="skipped">
            <thead>
              <tr>
                <th scope="col">{t('Row')}</th>
                <th scope="col">{t('Phone as given')}</th>
                <th scope="col">{t('Why')}</th>
              </tr>
            </thead>
            <tbody>
              {skipped.rows.map((row) => (
                <tr>
                  <td>{row.row}</td>
                  <td dir="ltr">{row.phone || '—'}</td>
                  <td>{skipReasonName(row.reason, row.duplicateOfRow)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {skipped.rows.length < skipped.total ? (
            <p class="muted">{t('The first {shown} are listed.', { shown: skipped.rows.length })}</p>
          ) : null}
        </div>
      ) : null}
    </section>
  )
}
