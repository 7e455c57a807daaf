import type { Call, CallDetail } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { api } from './api.ts'
import { t } from './i18n.tsx'
import { ExportButton } from './records/export.tsx'
import { AnalysisCard, callOutcomeName, seconds, usd, when } from './records/format.tsx'
import {
  agentChoice,
  analysisChoice,
  type Choice,
  RecordsView,
  useAgents,
  useRecords,
} from './records/list.tsx'
import { linkProps } from './router.ts'
import { ErrorLine, Loading } from './ui.tsx'

const statusName = (status: Call['status']) =>
  ({ active: t('in progress'), ended: t('ended'), failed: t('failed') })[status]

const directionName = (call: Call) =>
  call.direction === 'web'
    ? t('from the website')
    : call.direction === 'inbound'
      ? t('phone call from {number}', { number: call.phoneNumber ?? '—' })
      : t('phone call to {number}', { number: call.phoneNumber ?? '—' })

/** Voice calls, from the website's microphone and the campaigns' phone calls: searchable, paged. */
export const CallsPage = () => {
  const agents = useAgents()
  const records = useRecords<Call>('/v1/calls')
  const agentName = (id: string) => agents.find((agent) => agent.id === id)?.name ?? id
  const choices: Choice[] = [
    agentChoice(agents),
    {
      name: 'direction',
      label: t('Kind'),
      options: [
        ['web', t('from the website')],
        ['outbound', t('phone calls')],
        ['inbound', t('calls to our numbers')],
      ],
    },
    {
      name: 'status',
      label: t('Status'),
      options: [
        ['active', t('in progress')],
        ['ended', t('ended')],
        ['failed', t('failed')],
      ],
    },
    analysisChoice(),
  ]
  return (
    <section aria-labelledby="calls-title">
      <div class="row spread">
        <h1 id="calls-title">{t('Calls')}</h1>
        <ExportButton kind="calls" />
      </div>
      <RecordsView
        records={records}
        choices={choices}
        empty={t('No calls yet. Visitors who press the microphone and campaign calls appear here.')}
        noMatch={t('No call matches.')}
        columns={[
          {
            label: t('When'),
            cell: (call) => <a {...linkProps(`/calls/${call.id}`)}>{when(call.startedAt)}</a>,
          },
          { label: t('Agent'), cell: (call) => agentName(call.agentId) },
          { label: t('Kind'), cell: directionName },
          { label: t('Length'), cell: (call) => seconds(call.durationSeconds) },
          { label: t('Status'), cell: (call) => statusName(call.status) },
          { label: t('Outcome'), cell: (call) => callOutcomeName(call.outcome) },
          { label: t('Cost'), cell: (call) => usd(call.costUsd) },
        ]}
      />
    </section>
  )
}

/** One call: who spoke what and when, how it ended, its cost and analysis, where it came from. */
export const CallPage = ({ id }: { id: string }) => {
  const [call, setCall] = useState<CallDetail['data'] | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    api<CallDetail>(`/v1/calls/${encodeURIComponent(id)}`).then((body) => setCall(body.data), setError)
  }, [id])
  if (!call) return error ? <ErrorLine error={error} /> : <Loading />
  return (
    <section aria-labelledby="call-title">
      <p>
        <a class="back" {...linkProps('/calls')}>
          {t('Calls')}
        </a>
      </p>
      <h1 id="call-title">
        {directionName(call)}, {when(call.startedAt)}
      </h1>
      <p class="muted">
        {statusName(call.status)} · {seconds(call.durationSeconds)} · {usd(call.costUsd)}
        {call.outcome ? ` · ${callOutcomeName(call.outcome)}` : ''}
        {call.sipStatus ? ` · SIP ${call.sipStatus}` : ''}
        {call.endReason ? ` · ${call.endReason}` : ''}
      </p>
      <p>
        <a {...linkProps(`/agents/${call.agentId}`)}>{t('The agent')}</a>
        {call.liveAgentId !== call.agentId ? (
          <>
            {' · '}
            <a {...linkProps(`/agents/${call.liveAgentId}`)}>{t('The agent it was handed to')}</a>
          </>
        ) : null}
        {call.conversationId ? (
          <>
            {' · '}
            <a {...linkProps(`/conversations/${call.conversationId}`)}>{t('The whole conversation')}</a>
          </>
        ) : null}
        {call.batchJobId ? (
          <>
            {' · '}
            <a {...linkProps(`/campaigns/${call.batchJobId}`)}>{t('Its campaign')}</a>
          </>
        ) : null}
      </p>
      <AnalysisCard analysis={call.analysis} />
      {call.transcript.length === 0 ? (
        <p class="empty">{t('Nothing was said in this call.')}</p>
      ) : (
        <ol class="transcript">
          {call.transcript.map((line) => (
            <li class={`turn ${line.role}`}>
              <span class="who">{line.role === 'user' ? t('Caller') : t('Agent')}</span>
              <p>{line.content}</p>
            </li>
          ))}
        </ol>
      )}
    </section>
  )
}
