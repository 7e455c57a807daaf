import type { AgentV1, Call, CallEvent, CreateCall, PhoneNumber } from '@parley/shared'
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, api } from '../api.ts'
import { t } from '../i18n.tsx'
import { callOutcomeName } from '../records/format.tsx'
import { linkProps } from '../router.ts'
import { describedBy, ErrorLine, Field, problemOf } from '../ui.tsx'
import { followCallEvents } from './call-events.ts'

/** E.164 as shared/src/phone-numbers.ts's E164_PATTERN (the studio imports only types): checked again by the server. */
const E164 = /^\+[1-9]\d{1,14}$/

/** `name=value` lines into the call's variables; the first line that is not one, as a problem. */
const parseVariables = (text: string): { variables: Record<string, string> } | { bad: string } => {
  const variables: Record<string, string> = {}
  for (const line of text.split('\n').map((each) => each.trim())) {
    if (!line) continue
    const at = line.indexOf('=')
    const name = at > 0 ? line.slice(0, at).trim() : ''
    if (!name) return { bad: line }
    variables[name] = line.slice(at + 1).trim()
  }
  return { variables }
}

type Line = { id: string; role: string; content: string }
type Transfer = { id: string; name: string; result: string }
type Ended = { outcome: string | null; sipStatus: number | null }

/** The call's progress in words, from the last progress event. */
const statusWords = (status: string) =>
  ({
    queued: t('Queued'),
    dialing: t('Dialling…'),
    ringing: t('Ringing…'),
    answered: t('Answered: in the call'),
    ended: t('Call ended'),
  })[status] ?? status

/** What the API's refusal of the call means for the owner, with where to fix it. */
const Refusal = ({ error }: { error: unknown }) => {
  if (error instanceof ApiError && error.code === 'do_not_call')
    return (
      <p class="error" role="alert">
        {t('This number is on your do-not-call list.')}{' '}
        <a {...linkProps('/campaigns/do-not-call')}>{t('Do-not-call list')}</a>
      </p>
    )
  if (error instanceof ApiError && error.code === 'insufficient_credits')
    return (
      <p class="error" role="alert">
        {t('Not enough credits for a call. Add credits, then try again.')}
      </p>
    )
  return <ErrorLine error={error} />
}

/**
 * Call me: one outbound call from one of the organization's numbers to a number the owner types
 * (POST /v1/calls as the signed-in member), then its events live (GET /v1/calls/{id}/events):
 * the status, each transcript line, transfers, and how it ended; "End call" hangs up.
 */
export const CallMe = ({ agent }: { agent: AgentV1 }) => {
  const [numbers, setNumbers] = useState<PhoneNumber[] | null>(null)
  const [from, setFrom] = useState('')
  const [to, setTo] = useState('')
  const [variablesText, setVariablesText] = useState('')
  const [problems, setProblems] = useState<{ to?: string; variables?: string }>({})
  const [error, setError] = useState<unknown>(null)
  const [isPlacing, setPlacing] = useState(false)
  const [call, setCall] = useState<Call | null>(null)
  const [status, setStatus] = useState('queued')
  const [lines, setLines] = useState<Line[]>([])
  const [transfers, setTransfers] = useState<Transfer[]>([])
  const [ended, setEnded] = useState<Ended | null>(null)
  const [isEnding, setEnding] = useState(false)
  const stop = useRef<(() => void) | null>(null)

  useEffect(() => {
    api<{ data: PhoneNumber[] }>('/v1/phone-numbers?page=1&limit=100').then(({ data }) => {
      setNumbers(data)
      setFrom(data[0]?.id ?? '')
    }, setError)
    return () => stop.current?.()
  }, [])

  const onEvent = (event: CallEvent) => {
    const data = event.data as Record<string, unknown>
    if (event.type === 'transcript')
      setLines((seen) => [...seen, { id: event.id, role: String(data.role), content: String(data.content) }])
    else if (event.type === 'transferred')
      setTransfers((seen) => [
        ...seen,
        { id: event.id, name: String(data.destinationName ?? ''), result: String(data.result ?? '') },
      ])
    else {
      setStatus(event.type)
      if (event.type === 'ended')
        setEnded({
          outcome: (data.outcome as string | null) ?? null,
          sipStatus: (data.sipStatus as number | null) ?? null,
        })
    }
  }

  const place = async (event: Event) => {
    event.preventDefault()
    setError(null)
    const number = to.replace(/[\s()-]/g, '')
    const parsed = parseVariables(variablesText)
    const found = {
      ...(E164.test(number) ? {} : { to: t('Not a valid phone number (E.164, like +14155550123)') }),
      ...('bad' in parsed ? { variables: t('Not a name=value line: {line}', { line: parsed.bad }) } : {}),
    }
    setProblems(found)
    if (found.to || found.variables || 'bad' in parsed) return
    const body: CreateCall = {
      fromPhoneNumberId: from,
      to: number,
      agentId: agent.id,
      ...(Object.keys(parsed.variables).length > 0 ? { variables: parsed.variables } : {}),
    }
    setPlacing(true)
    try {
      const { data } = await api<{ data: Call }>('/v1/calls', { method: 'POST', json: body })
      setCall(data)
      setStatus('queued')
      setLines([])
      setTransfers([])
      setEnded(null)
      stop.current?.()
      stop.current = followCallEvents({ callId: data.id, onEvent, onError: setError })
    } catch (caught) {
      setError(caught)
    } finally {
      setPlacing(false)
    }
  }

  const end = async () => {
    if (!call) return
    setEnding(true)
    setError(null)
    try {
      await api(`/v1/calls/${encodeURIComponent(call.id)}/hangup`, { method: 'POST' })
    } catch (caught) {
      // Already over: its `ended` event says how.
      if (!(caught instanceof ApiError && caught.code === 'call_ended')) setError(caught)
    } finally {
      setEnding(false)
    }
  }

  const isLive = call !== null && ended === null
  return (
    <section class="card call-me" aria-labelledby="call-me-title">
      <h2 id="call-me-title">{t('Call me')}</h2>
      <p class="muted">
        {t(
          'The agent calls a number you give from one of your phone numbers. The call is billed like any other.',
        )}
      </p>
      {numbers === null ? null : numbers.length === 0 ? (
        <p class="empty">
          {t('Your organization has no phone number to call from yet.')}{' '}
          <a {...linkProps('/campaigns/phone-numbers')}>{t('Add a phone number')}</a>
        </p>
      ) : (
        <form class="call-me-form" onSubmit={place} noValidate>
          <Field label={t('Call from')} name="callFrom">
            <select
              id="callFrom"
              name="callFrom"
              value={from}
              disabled={isLive}
              onChange={(event) => setFrom(event.currentTarget.value)}
            >
              {numbers.map((number) => (
                <option value={number.id}>
                  {number.label ? `${number.number} · ${number.label}` : number.number}
                </option>
              ))}
            </select>
          </Field>
          <Field
            label={t('Number to call')}
            name="callTo"
            hint={t('E.164, like +14155550123')}
            problem={problems.to ?? problemOf(error, 'to')}
          >
            <input
              {...describedBy('callTo', { problem: problems.to ?? problemOf(error, 'to'), hint: true })}
              type="tel"
              autocomplete="tel"
              value={to}
              disabled={isLive}
              onInput={(event) => setTo(event.currentTarget.value)}
            />
          </Field>
          <Field
            label={t('Variables (optional)')}
            name="callVariables"
            hint={t('One name=value a line: they fill the {{name}} placeholders of the prompt.')}
            problem={problems.variables}
          >
            <textarea
              {...describedBy('callVariables', { problem: problems.variables, hint: true })}
              rows={2}
              value={variablesText}
              disabled={isLive}
              onInput={(event) => setVariablesText(event.currentTarget.value)}
            />
          </Field>
          <div class="row">
            <button type="submit" class="primary" disabled={isPlacing || isLive} aria-busy={isPlacing}>
              {isPlacing ? t('Calling…') : t('Call')}
            </button>
            {isLive ? (
              <button type="button" class="danger" onClick={end} disabled={isEnding} aria-busy={isEnding}>
                {t('End call')}
              </button>
            ) : null}
          </div>
        </form>
      )}
      <Refusal error={error} />
      {call ? (
        <div class="call-me-live">
          <p id="call-me-status" role="status" aria-live="polite">
            {ended
              ? `${statusWords('ended')}: ${callOutcomeName(ended.outcome)}${
                  ended.sipStatus === null
                    ? ''
                    : ` · ${t('SIP status {status}', { status: ended.sipStatus })}`
                }`
              : statusWords(status)}
          </p>
          <p class="muted">
            <a {...linkProps(`/calls/${call.id}`)}>{t('The call’s record')}</a>
          </p>
          {transfers.length > 0 ? (
            <ul class="call-me-transfers">
              {transfers.map((transfer) => (
                <li key={transfer.id}>
                  {t('Transfer to {name}: {result}', { name: transfer.name, result: transfer.result })}
                </li>
              ))}
            </ul>
          ) : null}
          {lines.length > 0 ? (
            <ol class="transcript" aria-label={t('What is said')}>
              {lines.map((line) => (
                <li key={line.id} class={`turn ${line.role}`}>
                  <span class="who">{line.role === 'user' ? t('Caller') : t('Agent')}</span>
                  <p>{line.content}</p>
                </li>
              ))}
            </ol>
          ) : null}
        </div>
      ) : null}
    </section>
  )
}
