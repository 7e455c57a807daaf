import type { DoNotCallEntry, DoNotCallImported } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { t } from '../i18n.tsx'
import { describedBy, ErrorLine, Field, Loading, problemOf } from '../ui.tsx'
import { addDoNotCall, importDoNotCall, listDoNotCall, type Page, removeDoNotCall } from './client.ts'
import { CampaignTabs, Pager } from './parts.tsx'

type Notice =
  | { kind: 'added' | 'already' | 'removed'; number: string }
  | { kind: 'imported'; result: DoNotCallImported['data'] }

const wordsOf = (notice: Notice) => {
  if (notice.kind === 'imported') {
    const { added, alreadyListed, invalid } = notice.result
    return t('Imported: {added} added, {alreadyListed} already listed, {invalid} invalid.', {
      added,
      alreadyListed,
      invalid,
    })
  }
  if (notice.kind === 'added') return t('{number} added to the list.', { number: notice.number })
  if (notice.kind === 'already') return t('{number} was on the list already.', { number: notice.number })
  return t('{number} removed from the list.', { number: notice.number })
}

/** Where an entry came from, in words: the API, an import, or the call or chat that opted out. */
const sourceOf = (entry: DoNotCallEntry) => {
  if (entry.sourceKind === 'api') return t('Added by hand or through the API')
  if (entry.sourceKind === 'import') return t('Imported')
  if (entry.sourceKind === 'call') return t('Opted out on call {id}', { id: entry.source })
  return t('Opted out in chat {id}', { id: entry.source })
}

/**
 * The organization's do-not-call list: numbers no campaign or call dials. Added one at a time or
 * imported from a CSV (the result shown), removed after a confirmation.
 */
export const DoNotCallPage = () => {
  const [entries, setEntries] = useState<Page<DoNotCallEntry> | null>(null)
  const [page, setPage] = useState(1)
  const [error, setError] = useState<unknown>(null)
  const [formError, setFormError] = useState<unknown>(null)
  const [isBusy, setBusy] = useState(false)
  const [notice, setNotice] = useState<Notice | null>(null)
  const load = (at: number) => {
    setError(null)
    return listDoNotCall(at).then((loaded) => {
      setEntries(loaded)
      setPage(at)
    }, setError)
  }
  useEffect(() => {
    void load(1)
  }, [])

  const add = async (event: SubmitEvent) => {
    event.preventDefault()
    const formElement = event.currentTarget as HTMLFormElement
    const form = new FormData(formElement)
    const phoneNumber = String(form.get('phoneNumber') ?? '').trim()
    const note = String(form.get('note') ?? '').trim()
    setFormError(null)
    setBusy(true)
    try {
      const added = await addDoNotCall({ phoneNumber, ...(note ? { note } : {}) })
      formElement.reset()
      await load(1)
      setNotice({ kind: added.alreadyListed ? 'already' : 'added', number: phoneNumber })
    } catch (caught) {
      setFormError(caught)
    } finally {
      setBusy(false)
    }
  }

  const upload = async (event: SubmitEvent) => {
    event.preventDefault()
    const formElement = event.currentTarget as HTMLFormElement
    setError(null)
    setBusy(true)
    try {
      const result = await importDoNotCall(new FormData(formElement))
      formElement.reset()
      await load(1)
      setNotice({ kind: 'imported', result })
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(false)
    }
  }

  const remove = async (entry: DoNotCallEntry) => {
    if (
      !confirm(
        t('Remove {number} from the do-not-call list? It may be called again.', {
          number: entry.phoneNumber,
        }),
      )
    )
      return
    setError(null)
    try {
      await removeDoNotCall(entry.phoneNumber)
      await load(entries?.data.length === 1 && page > 1 ? page - 1 : page)
      setNotice({ kind: 'removed', number: entry.phoneNumber })
    } catch (caught) {
      setError(caught)
    }
  }

  const problem = (field: string) => problemOf(formError, field)
  return (
    <section aria-labelledby="do-not-call-title">
      <CampaignTabs />
      <h1 id="do-not-call-title">{t('Do not call')}</h1>
      <p class="muted">
        {t(
          'Numbers on this list are never dialled: campaigns skip them, a single call to one is refused, and agents with opt-out add callers who ask.',
        )}
      </p>
      <form class="card" onSubmit={add} aria-labelledby="add-do-not-call">
        <h2 id="add-do-not-call">{t('Add a number')}</h2>
        <Field
          label={t('Number')}
          name="phoneNumber"
          hint={t('In international form: a + and digits only, like +14155550123')}
          problem={problem('phoneNumber')}
        >
          <input
            {...describedBy('phoneNumber', { problem: problem('phoneNumber'), hint: true })}
            required
            inputMode="tel"
            dir="ltr"
          />
        </Field>
        <Field label={t('Note')} name="note" problem={problem('note')}>
          <input {...describedBy('note', { problem: problem('note') })} maxLength={500} />
        </Field>
        <ErrorLine error={problem('phoneNumber') || problem('note') ? null : formError} />
        <button type="submit" disabled={isBusy}>
          {t('Add to the list')}
        </button>
      </form>
      <form class="card" onSubmit={upload} aria-labelledby="import-do-not-call">
        <h2 id="import-do-not-call">{t('Import a CSV')}</h2>
        <Field label={t('CSV file with a phone column')} name="file" problem={undefined}>
          <input
            {...describedBy('file', { problem: undefined })}
            type="file"
            accept=".csv,text/csv"
            required
          />
        </Field>
        <button type="submit" disabled={isBusy}>
          {t('Import')}
        </button>
      </form>
      <p class="ok" role="status">
        {notice ? wordsOf(notice) : ''}
      </p>
      {notice?.kind === 'imported' && notice.result.invalidRows.length > 0 ? (
        <ul class="muted" aria-label={t('Invalid rows')}>
          {notice.result.invalidRows.map((row) => (
            <li>{t('Row {row}: {value}', { row: row.row, value: row.phoneNumber || t('(empty)') })}</li>
          ))}
        </ul>
      ) : null}
      <ErrorLine error={error} />
      {entries === null ? (
        error ? null : (
          <Loading />
        )
      ) : entries.data.length === 0 ? (
        <p class="empty">{t('No numbers on the do-not-call list.')}</p>
      ) : (
        <ul class="numbers">
          {entries.data.map((entry) => (
            <li class="number-row">
              <span>
                <strong dir="ltr">{entry.phoneNumber}</strong> {entry.note ?? null}
                <br />
                <span class="muted">
                  {sourceOf(entry)} · {new Date(entry.createdAt).toLocaleString()}
                </span>
              </span>
              <button
                type="button"
                class="small danger"
                aria-label={t('Remove {number}', { number: entry.phoneNumber })}
                onClick={() => remove(entry)}
              >
                {t('Remove')}
              </button>
            </li>
          ))}
        </ul>
      )}
      {entries ? (
        <Pager
          page={page}
          hasNext={entries.pagination.hasNext}
          total={entries.pagination.total}
          onPage={(at) => void load(at)}
          label={t('Pages of do-not-call numbers')}
        />
      ) : null}
    </section>
  )
}
