import type { Export, ExportKind } from '@parley/shared'
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, session } from '../api.ts'
import { t } from '../i18n.tsx'
import { ErrorLine } from '../ui.tsx'

const POLL_MS = 1000

/** The finished file, fetched with the studio token and handed to the browser as a download. */
const download = async (job: Export) => {
  const response = await fetch(job.downloadUrl ?? '', {
    headers: { authorization: `Bearer ${session.value?.token ?? ''}` },
  })
  if (!response.ok)
    throw new Error(t('The file could not be downloaded ({status}).', { status: response.status }))
  const link = document.createElement('a')
  link.href = URL.createObjectURL(await response.blob())
  link.download = `parley-${job.kind}-${job.createdAt.slice(0, 10)}.${job.format === 'csv' ? 'csv' : 'ndjson'}`
  link.click()
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000)
}

/**
 * "Export" for a records list: the export job is asked for, its progress shown as it writes (rows
 * of rows), and the file downloaded when it is done. The server refuses what a role may not export.
 */
export const ExportButton = ({ kind }: { kind: ExportKind }) => {
  const [format, setFormat] = useState<'csv' | 'ndjson'>('csv')
  const [job, setJob] = useState<Export | null>(null)
  const [error, setError] = useState<unknown>(null)
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  useEffect(() => () => clearTimeout(timer.current), [])

  const follow = async (id: string) => {
    try {
      const next = await api<Export>(`/api/export/${encodeURIComponent(id)}`)
      setJob(next)
      if (next.status === 'completed') await download(next)
      else if (next.status === 'failed') setError(new Error(next.error ?? t('The export failed.')))
      else timer.current = setTimeout(() => void follow(id), POLL_MS)
    } catch (caught) {
      setError(caught)
    }
  }
  const start = async () => {
    setError(null)
    try {
      const created = await api<Export>('/api/export', { method: 'POST', json: { kind, format } })
      setJob(created)
      void follow(created.id)
    } catch (caught) {
      setError(caught)
    }
  }
  const isRunning = job !== null && (job.status === 'queued' || job.status === 'running')
  return (
    <div class="export">
      <label class="filter">
        <span>{t('File')}</span>
        <select value={format} onChange={(event) => setFormat(event.currentTarget.value as 'csv' | 'ndjson')}>
          <option value="csv">CSV</option>
          <option value="ndjson">NDJSON</option>
        </select>
      </label>
      <button type="button" onClick={start} disabled={isRunning}>
        {t('Export all')}
      </button>
      {isRunning ? (
        <label class="progress">
          <span>{t('Writing {done} of {total} rows…', { done: job.rowsDone, total: job.rowsTotal })}</span>
          <progress value={job.rowsDone} max={Math.max(job.rowsTotal, 1)} />
        </label>
      ) : job?.status === 'completed' ? (
        <span role="status">{t('Exported. Rows: {total}', { total: job.rowsTotal })}</span>
      ) : null}
      <ErrorLine error={error} />
    </div>
  )
}
