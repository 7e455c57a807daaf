import type { Retention } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { session } from '../api.ts'
import { t } from '../i18n.tsx'
import { describedBy, ErrorLine, Field, Loading, problemOf } from '../ui.tsx'
import { readRetention, updateRetention } from './client.ts'

const fields = () =>
  [
    ['conversationDays', t('Conversations, with their messages')],
    ['callDays', t('Calls, with their transcripts')],
    ['exportDays', t('Exports')],
  ] as const

/** An empty box keeps forever; a number of days is sent as it is (the API checks its range). */
const daysOf = (value: FormDataEntryValue | null) => {
  const text = String(value ?? '').trim()
  return text === '' ? null : Number(text)
}

/**
 * How long the organization keeps its records: a daily job deletes what is older. Everyone sees
 * the limits; owners and admins change them.
 */
export const RetentionPage = () => {
  const organizationId = session.value?.organization.id ?? ''
  const canChange = session.value?.organization.role !== 'member'
  const [current, setCurrent] = useState<Retention | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [saved, setSaved] = useState(false)
  const [busy, setBusy] = useState(false)
  useEffect(() => {
    readRetention(organizationId).then(setCurrent, setError)
  }, [organizationId])
  const save = async (form: FormData) => {
    setBusy(true)
    setError(null)
    setSaved(false)
    try {
      setCurrent(
        await updateRetention(organizationId, {
          conversationDays: daysOf(form.get('conversationDays')),
          callDays: daysOf(form.get('callDays')),
          exportDays: daysOf(form.get('exportDays')),
        }),
      )
      setSaved(true)
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(false)
    }
  }
  return (
    <section aria-labelledby="retention-title">
      <h1 id="retention-title">{t('Data retention')}</h1>
      <p class="muted">
        {t('Records older than these many days are deleted once a day. Leave a box empty to keep them.')}
      </p>
      {current ? (
        <form
          class="card"
          onSubmit={(event) => {
            event.preventDefault()
            void save(new FormData(event.currentTarget))
          }}
        >
          {fields().map(([name, label]) => (
            <Field label={label} name={name} problem={problemOf(error, name)}>
              <input
                {...describedBy(name, { problem: problemOf(error, name) })}
                type="number"
                min={1}
                max={3650}
                step={1}
                inputMode="numeric"
                value={current[name] ?? ''}
                placeholder={t('Keep')}
                disabled={!canChange}
              />
            </Field>
          ))}
          {canChange ? (
            <button type="submit" disabled={busy}>
              {t('Save')}
            </button>
          ) : (
            <p class="muted">{t('Owners and admins can change these.')}</p>
          )}
          {saved ? <p role="status">{t('Saved.')}</p> : null}
        </form>
      ) : error ? null : (
        <Loading />
      )}
      <ErrorLine error={error} />
    </section>
  )
}
