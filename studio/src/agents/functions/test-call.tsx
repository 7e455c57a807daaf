import type { CustomFunction, FunctionTestResult } from '@parley/shared'
import { useState } from 'preact/hooks'
import { t } from '../../i18n.tsx'
import { ErrorLine, problemOf } from '../../ui.tsx'
import { testFunction } from './client.ts'
import { JsonEditor, problemsOfArguments } from './json-editor.tsx'

type Property = { type?: unknown; default?: unknown }

/** Sample arguments to start from: each parameter's default, or an empty value of its type. */
const sampleOf = (parameters: Record<string, unknown>) => {
  const properties = (parameters.properties ?? {}) as Record<string, Property>
  const blank: Record<string, unknown> = { string: '', number: 0, boolean: false, array: [], object: {} }
  const sample = Object.fromEntries(
    Object.entries(properties).map(([name, property]) => [
      name,
      'default' in property ? property.default : (blank[String(property.type)] ?? null),
    ]),
  )
  return JSON.stringify(sample, null, 2)
}

/** The body as the endpoint sent it, indented when it is JSON (a cut body is shown as it is). */
const readable = (body: string) => {
  try {
    return JSON.stringify(JSON.parse(body), null, 2)
  } catch {
    return body
  }
}

const Answer = ({ answer }: { answer: FunctionTestResult }) => (
  <div class={answer.ok ? 'test-answer' : 'test-answer failed'}>
    <p>
      <strong>
        {answer.status === null ? t('No answer') : t('HTTP {status}', { status: answer.status })}
      </strong>{' '}
      · {t('{ms} ms', { ms: answer.durationMs })} ·{' '}
      {answer.ok ? t('The agent would be given this JSON.') : t('The agent would be told:')}
    </p>
    {answer.error ? <p class="error">{answer.error}</p> : null}
    {answer.body !== null ? (
      // Scrolls sideways when long: a region that takes focus, so a keyboard can scroll it too.
      <section class="test-body" tabindex={0} aria-label={t('Response body')}>
        <pre class="code" dir="ltr">
          {answer.truncated ? answer.body : readable(answer.body)}
        </pre>
      </section>
    ) : null}
    {answer.truncated ? <p class="muted">{t('Only the beginning of the body is shown.')}</p> : null}
  </div>
)

/**
 * A "test call" of one stored function: sample arguments (JSON, checked against its parameters as
 * they are typed), one real request through the server as chat would make it, then the status,
 * time and body, or what went wrong in words. No model is asked, so no credits are spent.
 */
export const TestCall = ({
  agentId,
  fn,
  onClose,
}: {
  agentId: string
  fn: CustomFunction
  onClose: () => void
}) => {
  const [text, setText] = useState(() => sampleOf(fn.parameters))
  const [answer, setAnswer] = useState<FunctionTestResult | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const [check] = useState(
    () => (checks: typeof import('./schema-check.ts'), value: string) =>
      checks.checkArgumentsText(value, fn.parameters),
  )

  const run = async (event: SubmitEvent) => {
    event.preventDefault()
    if ((await problemsOfArguments(text, fn.parameters)).length > 0)
      return document.getElementById('test-arguments')?.focus()
    setError(null)
    setAnswer(null)
    setBusy(true)
    try {
      setAnswer(await testFunction(agentId, fn.id, JSON.parse(text) as Record<string, unknown>))
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(false)
    }
  }
  const argumentsProblem = problemOf(error, 'arguments')
  return (
    <form class="card test-call" onSubmit={run} aria-labelledby="test-call-title">
      <h3 id="test-call-title">{t('Test call: {label}', { label: fn.label })}</h3>
      <p class="muted">
        {t('Calls {method} {endpoint} once, as the agent would. No credits are used.', {
          method: fn.method,
          endpoint: fn.endpoint,
        })}
      </p>
      <JsonEditor
        name="test-arguments"
        label={t('Arguments (JSON)')}
        value={text}
        onInput={setText}
        problem={argumentsProblem}
        check={check}
        rows={5}
      />
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          {t('Call it')}
        </button>
        <button type="button" onClick={onClose}>
          {t('Close')}
        </button>
      </div>
      <div aria-live="polite" class="test-outcome">
        {busy ? (
          <p class="muted">
            <progress aria-label={t('Calling…')} /> {t('Calling… (at most 10 s)')}
          </p>
        ) : null}
        {argumentsProblem ? null : <ErrorLine error={error} />}
        {answer ? <Answer answer={answer} /> : null}
      </div>
    </form>
  )
}
