import type { ConversationDetail, ConversationList } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { api } from './api.ts'
import { t } from './i18n.tsx'
import { ExportButton } from './records/export.tsx'
import { AnalysisCard, seconds, usd, when } from './records/format.tsx'
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

type Row = ConversationList['data'][number]

const statusName = (status: Row['status']) =>
  ({ active: t('active'), ended: t('ended'), expired: t('expired') })[status]

/** What visitors said, typed or spoken: newest first, searchable and filtered, a page at a time. */
export const ConversationsPage = () => {
  const agents = useAgents()
  const records = useRecords<Row>('/v1/conversations')
  const choices: Choice[] = [
    agentChoice(agents),
    {
      name: 'channel',
      label: t('Channel'),
      options: [
        ['text', t('typed')],
        ['voice', t('spoken')],
      ],
    },
    {
      name: 'status',
      label: t('Status'),
      options: [
        ['active', t('active')],
        ['ended', t('ended')],
        ['expired', t('expired')],
      ],
    },
    analysisChoice(),
  ]
  return (
    <section aria-labelledby="conversations-title">
      <div class="row spread">
        <h1 id="conversations-title">{t('Conversations')}</h1>
        <ExportButton kind="conversations" />
      </div>
      <RecordsView
        records={records}
        choices={choices}
        empty={t('No conversations yet. They appear here as visitors talk to your agents.')}
        noMatch={t('No conversation matches.')}
        columns={[
          {
            label: t('When'),
            cell: (row) => <a {...linkProps(`/conversations/${row.id}`)}>{when(row.createdAt)}</a>,
          },
          { label: t('Agent'), cell: (row) => row.agentName },
          {
            label: t('Messages'),
            cell: (row) => `${row.messageCount}${row.channels.includes('voice') ? ` · ${t('spoken')}` : ''}`,
          },
          { label: t('Status'), cell: (row) => statusName(row.status) },
          { label: t('Cost'), cell: (row) => usd(row.costUsd) },
        ]}
      />
    </section>
  )
}

type Conversation = ConversationDetail['data']

/** The tools the agent called and its handoffs, in order, with what it passed. */
const ToolCalls = ({ calls }: { calls: Conversation['toolCalls'] }) =>
  calls.length === 0 ? null : (
    <>
      <h2>{t('What the agent did')}</h2>
      <ul class="list">
        {calls.map((call) => (
          <li>
            <code>{call.name}</code>{' '}
            <span class="muted">
              {call.status === 'completed' ? t('completed') : t('failed')} · {when(call.createdAt)}
            </span>
            {call.arguments !== undefined && call.arguments !== null ? (
              <pre class="code">{JSON.stringify(call.arguments, null, 2)}</pre>
            ) : null}
          </li>
        ))}
      </ul>
    </>
  )

/** One conversation: its typed and spoken turns in order, tool calls, calls, cost and analysis. */
export const ConversationPage = ({ id }: { id: string }) => {
  const [conversation, setConversation] = useState<Conversation | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    api<ConversationDetail>(`/v1/conversations/${encodeURIComponent(id)}`).then(
      (body) => setConversation(body.data),
      setError,
    )
  }, [id])
  if (!conversation) return error ? <ErrorLine error={error} /> : <Loading />
  return (
    <section aria-labelledby="conversation-title">
      <p>
        <a class="back" {...linkProps('/conversations')}>
          {t('Conversations')}
        </a>
      </p>
      <h1 id="conversation-title">
        {conversation.agentName}, {when(conversation.createdAt)}
      </h1>
      <p class="muted">
        {statusName(conversation.status)} · {t('{count} messages', { count: conversation.messageCount })} ·{' '}
        {seconds(conversation.durationSeconds)} · {usd(conversation.costUsd)}
        {conversation.userIdentifier ? ` · ${conversation.userIdentifier}` : ''}
      </p>
      <AnalysisCard analysis={conversation.analysis} />
      <ol class="transcript">
        {conversation.messages.map((message) => (
          <li class={`turn ${message.role}`}>
            <span class="who">
              {message.role === 'user'
                ? message.channel === 'voice'
                  ? t('Visitor (spoken)')
                  : t('Visitor (typed)')
                : message.channel === 'voice'
                  ? t('Agent (spoken)')
                  : t('Agent (typed)')}
            </span>
            <p>{message.content}</p>
          </li>
        ))}
      </ol>
      <ToolCalls calls={conversation.toolCalls} />
      {conversation.calls.length > 0 ? (
        <>
          <h2>{t('Calls in this conversation')}</h2>
          <ul class="list">
            {conversation.calls.map((call) => (
              <li>
                <a {...linkProps(`/calls/${call.id}`)}>{when(call.startedAt)}</a>{' '}
                <span class="muted">
                  {seconds(call.durationSeconds)} · {usd(call.costUsd)}
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  )
}
