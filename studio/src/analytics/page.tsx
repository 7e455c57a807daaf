import type { Analytics } from '@parley/shared'
import { useEffect, useMemo, useState } from 'preact/hooks'
import { api } from '../api.ts'
import { t } from '../i18n.tsx'
import { seconds, usd } from '../records/format.tsx'
import { useAgents } from '../records/list.tsx'
import { ErrorLine, Loading } from '../ui.tsx'
import { DayChart } from './chart.tsx'
import { type Day, isoDay, sumByDay, sumOutcomes } from './days.ts'
import './analytics.css'

type Range = { from: string; to: string; agentId: string }

const total = (days: Day[], pick: (day: Day) => number) => days.reduce((sum, day) => sum + pick(day), 0)

/** Owners' charts: per day over a range (the last 30 days at first), for one agent or all. */
export const AnalyticsPage = () => {
  const agents = useAgents()
  const [range, setRange] = useState<Range>({ from: isoDay(-29), to: isoDay(), agentId: '' })
  const [rows, setRows] = useState<Analytics['data'] | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    setError(null)
    const params = new URLSearchParams({ from: range.from, to: range.to })
    if (range.agentId) params.set('agentId', range.agentId)
    api<Analytics>(`/v1/analytics?${params}`).then(
      (answer) => setRows(answer.data),
      (caught: unknown) => setError(caught),
    )
  }, [range])
  const days = useMemo(() => (rows ? sumByDay(rows, range.from, range.to) : []), [rows, range])
  const dates = useMemo(() => days.map((day) => day.date), [days])
  const charts = useMemo(
    () => [
      {
        title: t('Conversations and calls'),
        series: [
          { label: t('Conversations'), values: days.map((day) => day.conversations) },
          { label: t('Calls'), values: days.map((day) => day.calls) },
        ],
      },
      {
        title: t('Call minutes'),
        series: [{ label: t('Minutes'), values: days.map((day) => day.callMinutes) }],
      },
      { title: t('Cost (USD)'), series: [{ label: t('Cost'), values: days.map((day) => day.costUsd) }] },
      {
        title: t('Time to first reply (seconds)'),
        series: [{ label: t('Seconds'), values: days.map((day) => day.firstReplySeconds) }],
      },
    ],
    [days],
  )
  return (
    <section aria-labelledby="analytics-title">
      <h1 id="analytics-title">{t('Analytics')}</h1>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault()
          const form = new FormData(event.currentTarget)
          setRange({
            from: String(form.get('from') || range.from),
            to: String(form.get('to') || range.to),
            agentId: String(form.get('agentId') ?? ''),
          })
        }}
      >
        <label class="filter">
          <span>{t('From')}</span>
          <input type="date" name="from" value={range.from} required />
        </label>
        <label class="filter">
          <span>{t('To')}</span>
          <input type="date" name="to" value={range.to} required />
        </label>
        <label class="filter">
          <span>{t('Agent')}</span>
          <select name="agentId" value={range.agentId}>
            <option value="">{t('Any')}</option>
            {agents.map((agent) => (
              <option value={agent.id}>{agent.name}</option>
            ))}
          </select>
        </label>
        <button type="submit">{t('Show')}</button>
      </form>
      <ErrorLine error={error} />
      {rows === null && !error ? <Loading /> : null}
      {rows ? (
        <>
          <dl class="totals">
            <div>
              <dt>{t('Conversations')}</dt>
              <dd>{total(days, (day) => day.conversations)}</dd>
            </div>
            <div>
              <dt>{t('Calls')}</dt>
              <dd>{total(days, (day) => day.calls)}</dd>
            </div>
            <div>
              <dt>{t('Call minutes')}</dt>
              <dd>{Math.round(total(days, (day) => day.callMinutes))}</dd>
            </div>
            <div>
              <dt>{t('Cost')}</dt>
              <dd>{usd(total(days, (day) => day.costUsd))}</dd>
            </div>
          </dl>
          <div class="charts">
            {charts.map((chart) => (
              <figure class="card">
                <figcaption>{chart.title}</figcaption>
                <DayChart days={dates} series={chart.series} label={chart.title} />
              </figure>
            ))}
          </div>
          <h2>{t('Outcomes')}</h2>
          {sumOutcomes(rows).length === 0 ? (
            <p class="empty">{t('Nothing happened in these days.')}</p>
          ) : (
            // biome-ignore lint/a11y/noNoninteractiveTabindex: a wide table scrolls on a phone; axe wants its region reachable by keyboard
            <section class="scroll" tabIndex={0} aria-label={t('Outcomes')}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('Outcome')}</th>
                    <th scope="col">{t('Count')}</th>
                  </tr>
                </thead>
                <tbody>
                  {sumOutcomes(rows).map(([outcome, count]) => (
                    <tr>
                      <td>{outcome}</td>
                      <td>{count}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          )}
          <details>
            <summary>{t('The numbers per day')}</summary>
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a wide table scrolls on a phone; axe wants its region reachable by keyboard */}
            <section class="scroll" tabIndex={0} aria-label={t('The numbers per day')}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('Day')}</th>
                    <th scope="col">{t('Conversations')}</th>
                    <th scope="col">{t('Calls')}</th>
                    <th scope="col">{t('Call minutes')}</th>
                    <th scope="col">{t('Cost')}</th>
                    <th scope="col">{t('Time to first reply')}</th>
                  </tr>
                </thead>
                <tbody>
                  {days.map((day) => (
                    <tr>
                      <td>{day.date}</td>
                      <td>{day.conversations}</td>
                      <td>{day.calls}</td>
                      <td>{Math.round(day.callMinutes * 10) / 10}</td>
                      <td>{usd(day.costUsd)}</td>
                      <td>
                        {seconds(day.firstReplySeconds === null ? null : Math.round(day.firstReplySeconds))}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          </details>
        </>
      ) : null}
    </section>
  )
}
