import type { AgentDraft, AgentV1, AgentVersionSummary, VersionChange } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { t } from '../i18n.tsx'
import { ErrorLine } from '../ui.tsx'
import { mayManage } from './access.ts'
import { diffVersion, listVersions, publishDraft, restoreVersion } from './versions-client.ts'

const shown = (value: unknown) => (value === null || value === undefined ? '—' : JSON.stringify(value))

/** A list of differences: each setting or function with its value before and after. */
const Changes = ({ changes }: { changes: VersionChange[] }) =>
  changes.length === 0 ? (
    <p class="muted">{t('No differences.')}</p>
  ) : (
    <ul class="version-changes">
      {changes.map((change) => (
        <li key={change.path}>
          <code>{change.path.replace(/^settings\./, '')}</code>: <del>{shown(change.before)}</del> →{' '}
          <ins>{shown(change.after)}</ins>
        </li>
      ))}
    </ul>
  )

/**
 * The agent's versions: what the draft would change, publishing it with a note, the history
 * (newest first, the live one marked) with each version's differences from the one before, and
 * restoring one into the draft.
 */
export const VersionsPanel = ({
  agent,
  draft,
  onChanged,
}: {
  agent: AgentV1
  draft: AgentDraft
  onChanged: () => Promise<void>
}) => {
  const [versions, setVersions] = useState<AgentVersionSummary[]>([])
  const [open, setOpen] = useState<Record<number, VersionChange[]>>({})
  const [note, setNote] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const mayPublish = mayManage(agent)
  useEffect(() => {
    listVersions(agent.id).then(setVersions, setError)
  }, [agent.id, draft.basedOn])

  const act = async (work: () => Promise<unknown>) => {
    setError(null)
    setBusy(true)
    try {
      await work()
      await onChanged()
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(false)
    }
  }
  const publish = (event: SubmitEvent) => {
    event.preventDefault()
    void act(async () => {
      await publishDraft(agent.id, note)
      setNote('')
    })
  }
  const toggle = async (number: number) => {
    if (open[number]) return setOpen(({ [number]: _closed, ...rest }) => rest)
    try {
      const diff = await diffVersion(agent.id, number)
      setOpen((current) => ({ ...current, [number]: diff.changes }))
    } catch (caught) {
      setError(caught)
    }
  }
  return (
    <section class="card" aria-labelledby="versions-title" id="versions">
      <h2 id="versions-title">{t('Versions')}</h2>
      {draft.changes.length === 0 ? (
        <p class="muted">{t('Your settings match the live version {number}.', { number: draft.basedOn })}</p>
      ) : (
        <form onSubmit={publish}>
          <p>
            {t('Saved but not live yet: visitors still get version {number}.', { number: draft.basedOn })}
          </p>
          <Changes changes={draft.changes} />
          {mayPublish ? (
            <div class="row">
              <label for="version-note">{t('Note')}</label>
              <input
                id="version-note"
                name="note"
                maxLength={500}
                value={note}
                onInput={(event) => setNote((event.currentTarget as HTMLInputElement).value)}
              />
              <button type="submit" disabled={busy}>
                {t('Publish')}
              </button>
            </div>
          ) : null}
        </form>
      )}
      <ErrorLine error={error} />
      <h3>{t('History')}</h3>
      <ol class="versions" reversed>
        {versions.map((version) => (
          <li key={version.number}>
            <strong>{t('Version {number}', { number: version.number })}</strong>
            {version.published ? <span class="badge live">{t('Live')}</span> : null}{' '}
            <span class="muted">
              {new Date(version.createdAt).toLocaleString()} {version.note ? `· ${version.note}` : ''}
            </span>{' '}
            <button type="button" class="link" onClick={() => toggle(version.number)}>
              {open[version.number] ? t('Hide changes') : t('Changes')}
            </button>
            {mayPublish && !version.published ? (
              <button
                type="button"
                class="link"
                disabled={busy}
                onClick={() => act(() => restoreVersion(agent.id, version.number))}
              >
                {t('Restore to draft')}
              </button>
            ) : null}
            {open[version.number] ? <Changes changes={open[version.number] ?? []} /> : null}
          </li>
        ))}
      </ol>
    </section>
  )
}
