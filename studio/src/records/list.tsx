import type { AgentListItem } from '@parley/shared'
import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { listAgents } from '../agents/client.ts'
import { api } from '../api.ts'
import { t } from '../i18n.tsx'
import { ErrorLine, Loading } from '../ui.tsx'

/** A filter of a records list: a query parameter and its choices, [value, label]. */
export type Choice = { name: string; label: string; options: Array<[string, string]> }

type Page<Row> = { data: Row[]; nextCursor: string | null }

/**
 * A cursor-paged records list (conversations, calls): the first page at once, the next on
 * demand, and a new search from the first page again. One request per page.
 */
export const useRecords = <Row,>(path: string, fixed: Record<string, string> = {}) => {
  const [rows, setRows] = useState<Row[] | null>(null)
  const [next, setNext] = useState<string | null>(null)
  const [filters, setFilters] = useState<Record<string, string>>({})
  const [error, setError] = useState<unknown>(null)
  const [isLoading, setLoading] = useState(false)
  const load = async (chosen: Record<string, string>, cursor: string | null) => {
    setError(null)
    setLoading(true)
    try {
      const params = new URLSearchParams({ limit: '20', ...fixed })
      for (const [name, value] of Object.entries(chosen)) if (value) params.set(name, value)
      if (cursor) params.set('cursor', cursor)
      const page = await api<Page<Row>>(`${path}?${params}`)
      setRows((shown) => (cursor ? [...(shown ?? []), ...page.data] : page.data))
      setNext(page.nextCursor)
    } catch (caught) {
      setError(caught)
    } finally {
      setLoading(false)
    }
  }
  useEffect(() => {
    void load({}, null)
  }, [path])
  return {
    rows,
    next,
    error,
    isLoading,
    isFiltered: Object.values(filters).some(Boolean),
    search: (chosen: Record<string, string>) => {
      setFilters(chosen)
      void load(chosen, null)
    },
    more: () => load(filters, next),
  }
}

/** Words to search for and a select per filter; submitting searches from the first page. */
export const Filters = ({
  choices,
  onSearch,
}: {
  choices: Choice[]
  onSearch: (chosen: Record<string, string>) => void
}) => (
  <search>
    <form
      class="filters"
      onSubmit={(event) => {
        event.preventDefault()
        const form = new FormData(event.currentTarget)
        onSearch(Object.fromEntries([...form.entries()].map(([name, value]) => [name, String(value)])))
      }}
    >
      <label for="q" class="visually-hidden">
        {t('Search what was said')}
      </label>
      <input id="q" name="q" type="search" placeholder={t('Search what was said')} />
      {choices.map((choice) => (
        <label class="filter">
          <span>{choice.label}</span>
          <select name={choice.name}>
            <option value="">{t('Any')}</option>
            {choice.options.map(([value, label]) => (
              <option value={value}>{label}</option>
            ))}
          </select>
        </label>
      ))}
      <button type="submit">{t('Search')}</button>
    </form>
  </search>
)

/** The organization's agents, for a filter and for names (one request). */
export const useAgents = () => {
  const [agents, setAgents] = useState<AgentListItem[]>([])
  useEffect(() => {
    listAgents().then(setAgents, () => undefined)
  }, [])
  return agents
}

export const agentChoice = (agents: AgentListItem[]): Choice => ({
  name: 'agentId',
  label: t('Agent'),
  options: agents.map((agent) => [agent.id, agent.name]),
})

export const analysisChoice = (): Choice => ({
  name: 'hasAnalysis',
  label: t('Analysis'),
  options: [
    ['true', t('analysed')],
    ['false', t('not analysed')],
  ],
})

type Column<Row> = { label: string; cell: (row: Row) => ComponentChildren }

/**
 * A records list as a page shows it: its filters, the API's error, the rows as a table that
 * scrolls inside itself on a phone (or what to say when there are none), and More.
 */
export const RecordsView = <Row,>({
  records,
  choices,
  columns,
  empty,
  noMatch,
}: {
  records: ReturnType<typeof useRecords<Row>>
  choices: Choice[]
  columns: Array<Column<Row>>
  empty: string
  noMatch: string
}) => (
  <>
    <Filters choices={choices} onSearch={records.search} />
    <ErrorLine error={records.error} />
    {records.rows === null ? (
      records.error ? null : (
        <Loading />
      )
    ) : records.rows.length === 0 ? (
      <p class="empty">{records.isFiltered ? noMatch : empty}</p>
    ) : (
      <div class="scroll">
        <table>
          <thead>
            <tr>
              {columns.map((column) => (
                <th scope="col">{column.label}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {records.rows.map((row) => (
              <tr>
                {columns.map((column) => (
                  <td>{column.cell(row)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
    {records.next ? (
      <button type="button" onClick={records.more} disabled={records.isLoading}>
        {t('More')}
      </button>
    ) : null}
  </>
)
