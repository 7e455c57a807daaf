import type { ConversationDetail, ConversationList } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { api } from './api.ts'
import { linkProps } from './router.ts'
import { ErrorLine, Loading } from './ui.tsx'

type Row = ConversationList['data'][number]

/** What visitors said: newest first, searchable by words said, a page at a time. */
export const ConversationsPage = () => {
  const [rows, setRows] = useState<Row[] | null>(null)
  const [next, setNext] = useState<string | null>(null)
  const [query, setQuery] = useState('')
  const [error, setError] = useState<unknown>(null)
  const load = async (words: string, cursor: string | null) => {
    setError(null)
    try {
      const params = new URLSearchParams({ limit: '20' })
      if (words) params.set('q', words)
      if (cursor) params.set('cursor', cursor)
      const page = await api<ConversationList>(`/v1/conversations?${params}`)
      setRows((shown) => (cursor ? [...(shown ?? []), ...page.data] : page.data))
      setNext(page.nextCursor)
    } catch (caught) {
      setError(caught)
    }
  }
  useEffect(() => {
    void load('', null)
  }, [])
  return (
    <section aria-labelledby="conversations-title">
      <h1 id="conversations-title">Conversations</h1>
      <search>
        <form
          onSubmit={(event) => {
            event.preventDefault()
            void load(query, null)
          }}
        >
          <label for="q" class="visually-hidden">
            Search what was said
          </label>
          <input
            id="q"
            type="search"
            placeholder="Search what was said"
            value={query}
            onInput={(event) => setQuery(event.currentTarget.value)}
          />
          <button type="submit">Search</button>
        </form>
      </search>
      <ErrorLine error={error} />
      {rows === null ? (
        error ? null : (
          <Loading />
        )
      ) : rows.length === 0 ? (
        <p class="empty">No conversations yet. They appear here as visitors talk to your agents.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Agent</th>
              <th scope="col">Messages</th>
              <th scope="col">Status</th>
              <th scope="col">Cost</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr>
                <td>
                  <a {...linkProps(`/conversations/${row.id}`)}>{new Date(row.createdAt).toLocaleString()}</a>
                </td>
                <td>{row.agentName}</td>
                <td>{row.messageCount}</td>
                <td>{row.status}</td>
                <td>${row.costUsd.toFixed(4)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next ? (
        <button type="button" onClick={() => load(query, next)}>
          More
        </button>
      ) : null}
    </section>
  )
}

/** One conversation: its typed and spoken turns in order, tool calls, cost and analysis. */
export const ConversationPage = ({ id }: { id: string }) => {
  const [conversation, setConversation] = useState<ConversationDetail['data'] | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    api<ConversationDetail>(`/v1/conversations/${id}`).then((body) => setConversation(body.data), setError)
  }, [id])
  if (!conversation) return error ? <ErrorLine error={error} /> : <Loading />
  return (
    <section aria-labelledby="conversation-title">
      <p>
        <a {...linkProps('/conversations')}>← Conversations</a>
      </p>
      <h1 id="conversation-title">
        {conversation.agentName}, {new Date(conversation.createdAt).toLocaleString()}
      </h1>
      <p class="muted">
        {conversation.status} · {conversation.messageCount} messages · {conversation.durationSeconds} s · $
        {conversation.costUsd.toFixed(4)}
      </p>
      {conversation.analysis ? (
        <div class="card">
          <h2>Analysis</h2>
          <p>{conversation.analysis.summary}</p>
          <p class="muted">
            {conversation.analysis.sentiment} · {conversation.analysis.outcome}
          </p>
        </div>
      ) : null}
      <ol class="transcript">
        {conversation.messages.map((message) => (
          <li class={`turn ${message.role}`}>
            <span class="who">
              {message.role === 'user' ? 'Visitor' : 'Agent'}
              {message.channel === 'voice' ? ' (spoken)' : ' (typed)'}
            </span>
            <p>{message.content}</p>
          </li>
        ))}
      </ol>
      {conversation.toolCalls.length > 0 ? (
        <>
          <h2>What the agent did</h2>
          <ul class="list">
            {conversation.toolCalls.map((call) => (
              <li>
                <code>{call.name}</code> <span class="muted">{call.status}</span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  )
}
