import type { AgentV1, KnowledgePassage, KnowledgeSource } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { getAgent, listAgents } from '../agents/client.ts'
import { t } from '../i18n.tsx'
import { describedBy, ErrorLine, Field, Loading, problemOf } from '../ui.tsx'
import {
  addSource,
  deleteSource,
  listSources,
  refetchSource,
  searchKnowledge,
  setAgentSources,
  uploadSource,
} from './client.ts'

const POLL_MS = 2000
const isBusy = (source: KnowledgeSource) => source.status !== 'ready' && source.status !== 'failed'

const statusOf = (source: KnowledgeSource) => {
  if (source.status === 'fetching')
    return t('Fetching: {done} of {found} pages', {
      done: source.progress.pagesDone,
      found: source.progress.pagesFound,
    })
  if (source.status === 'ready') return t('Ready: {chunks} passages', { chunks: source.chunkCount })
  if (source.status === 'failed') return t('Failed: {reason}', { reason: source.error ?? '' })
  return source.status === 'queued' ? t('Queued') : t('Indexing')
}

/** One source: its status as it goes, the pages that failed and why, re-fetch and delete. */
const SourceItem = ({ source, onChange }: { source: KnowledgeSource; onChange: () => void }) => (
  <li>
    <strong>{source.title}</strong> <span class="muted">{source.url ?? source.fileType ?? source.kind}</span>
    <div role="status">{statusOf(source)}</div>
    {source.pageErrors.length > 0 && (
      <ul>
        {source.pageErrors.map((page) => (
          <li key={page.url}>
            {page.url}: {page.reason}
          </li>
        ))}
      </ul>
    )}
    {!isBusy(source) && source.kind !== 'text' && source.kind !== 'file' && (
      <button type="button" class="small" onClick={() => refetchSource(source.id).then(onChange, onChange)}>
        {t('Fetch again')}
      </button>
    )}{' '}
    <button
      type="button"
      class="danger small"
      onClick={() => deleteSource(source.id).then(onChange, onChange)}
    >
      {t('Delete')}
    </button>
  </li>
)

/** Adds a source: text, a page, a whole site, or a file. */
const AddSource = ({ onAdded }: { onAdded: () => void }) => {
  const [kind, setKind] = useState<'text' | 'url' | 'site' | 'file'>('site')
  const [error, setError] = useState<unknown>(null)
  const submit = async (event: SubmitEvent) => {
    event.preventDefault()
    const formElement = event.currentTarget as HTMLFormElement
    const form = new FormData(formElement)
    setError(null)
    try {
      if (kind === 'file') {
        form.delete('text')
        form.delete('url')
        if (!form.get('title')) form.delete('title')
        await uploadSource(form)
      } else {
        const title = String(form.get('title') ?? '')
        await addSource({
          kind,
          ...(title ? { title } : {}),
          ...(kind === 'text'
            ? { text: String(form.get('text') ?? '') }
            : { url: String(form.get('url') ?? '') }),
        })
      }
      formElement.reset()
      onAdded()
    } catch (caught) {
      setError(caught)
    }
  }
  return (
    <form class="card" onSubmit={submit}>
      <h2>{t('Add a source')}</h2>
      <ErrorLine error={error} />
      <Field label={t('Kind')} name="kind">
        <select
          {...describedBy('kind', {})}
          value={kind}
          onChange={(event) => setKind(event.currentTarget.value as typeof kind)}
        >
          <option value="site">{t('A whole site')}</option>
          <option value="url">{t('One page')}</option>
          <option value="file">{t('A file (PDF, DOCX, HTML, Markdown, text, CSV)')}</option>
          <option value="text">{t('Text')}</option>
        </select>
      </Field>
      <Field label={t('Title')} name="title" problem={problemOf(error, 'title')}>
        <input
          {...describedBy('title', { problem: problemOf(error, 'title') })}
          required={kind === 'text'}
          maxLength={200}
        />
      </Field>
      {(kind === 'site' || kind === 'url') && (
        <Field label={t('Address')} name="url" problem={problemOf(error, 'url')}>
          <input
            {...describedBy('url', { problem: problemOf(error, 'url') })}
            type="url"
            required
            placeholder="https://"
          />
        </Field>
      )}
      {kind === 'file' && (
        <Field label={t('File')} name="file" problem={problemOf(error, 'file')}>
          <input {...describedBy('file', { problem: problemOf(error, 'file') })} type="file" required />
        </Field>
      )}
      {kind === 'text' && (
        <Field label={t('Text')} name="text" problem={problemOf(error, 'text')}>
          <textarea {...describedBy('text', { problem: problemOf(error, 'text') })} required rows={6} />
        </Field>
      )}
      <button type="submit" class="primary">
        {t('Add')}
      </button>
    </form>
  )
}

/** A question tried against every source: the passages an agent would be given. */
const TryQuestion = () => {
  const [passages, setPassages] = useState<KnowledgePassage[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const submit = (event: SubmitEvent) => {
    event.preventDefault()
    const q = String(new FormData(event.currentTarget as HTMLFormElement).get('q') ?? '')
    setError(null)
    searchKnowledge(q).then((found) => setPassages(found.passages), setError)
  }
  return (
    <form class="card" onSubmit={submit}>
      <h2>{t('Try a question')}</h2>
      <Field label={t('Question')} name="q" problem={problemOf(error, 'q')}>
        <input {...describedBy('q', { problem: problemOf(error, 'q') })} required maxLength={500} />
      </Field>
      <button type="submit">{t('Search')}</button>
      <ErrorLine error={error} />
      {passages && passages.length === 0 && <p class="empty">{t('No passage matches this question.')}</p>}
      {passages && passages.length > 0 && (
        <ol>
          {passages.map((passage) => (
            <li key={`${passage.sourceId}${passage.text.slice(0, 40)}`}>
              <strong>{passage.title}</strong> {passage.url && <span class="muted">{passage.url}</span>}
              <p dir="auto">{passage.text}</p>
            </li>
          ))}
        </ol>
      )}
    </form>
  )
}

/** Which agents answer from which sources: one checkbox per agent and source. */
const AttachToAgents = ({ sources }: { sources: KnowledgeSource[] }) => {
  const [agents, setAgents] = useState<AgentV1[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    listAgents()
      .then((items) => Promise.all(items.map((item) => getAgent(item.id))))
      .then(setAgents, setError)
  }, [])
  const toggle = async (agent: AgentV1, sourceId: string, isOn: boolean) => {
    const ids = isOn
      ? [...agent.knowledgeSourceIds, sourceId]
      : agent.knowledgeSourceIds.filter((id) => id !== sourceId)
    try {
      await setAgentSources(agent, ids)
      setAgents(
        (current) =>
          current?.map((item) => (item.id === agent.id ? { ...item, knowledgeSourceIds: ids } : item)) ??
          null,
      )
    } catch (caught) {
      setError(caught)
    }
  }
  if (!agents) return error ? <ErrorLine error={error} /> : <Loading />
  return (
    <section class="card">
      <h2>{t('Agents answering from these sources')}</h2>
      <ErrorLine error={error} />
      {agents.map((agent) => (
        <fieldset key={agent.id}>
          <legend>{agent.name}</legend>
          {sources.map((source) => (
            <label key={source.id}>
              <input
                type="checkbox"
                checked={agent.knowledgeSourceIds.includes(source.id)}
                onChange={(event) => void toggle(agent, source.id, event.currentTarget.checked)}
              />{' '}
              {source.title}
            </label>
          ))}
        </fieldset>
      ))}
    </section>
  )
}

/** The organization's knowledge: sources and their progress, a question to try, agents to attach. */
export const KnowledgePage = () => {
  const [sources, setSources] = useState<KnowledgeSource[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [version, setVersion] = useState(0)
  const reload = () => setVersion((value) => value + 1)
  useEffect(() => {
    listSources().then(setSources, setError)
  }, [version])
  useEffect(() => {
    if (!sources?.some(isBusy)) return
    const timer = setTimeout(reload, POLL_MS)
    return () => clearTimeout(timer)
  }, [sources])
  return (
    <section aria-labelledby="knowledge-title">
      <h1 id="knowledge-title">{t('Knowledge')}</h1>
      <p class="muted">
        {t('Your site and documents, for agents to answer from and name as their sources.')}
      </p>
      <ErrorLine error={error} />
      {sources === null ? (
        error ? null : (
          <Loading />
        )
      ) : sources.length === 0 ? (
        <p class="empty">{t('No sources yet.')}</p>
      ) : (
        <ul class="list">
          {sources.map((source) => (
            <SourceItem key={source.id} source={source} onChange={reload} />
          ))}
        </ul>
      )}
      <AddSource onAdded={reload} />
      <TryQuestion />
      {sources && sources.length > 0 && <AttachToAgents sources={sources} />}
    </section>
  )
}
