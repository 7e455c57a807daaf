import type { AgentTest, AgentV1, CreateAgentTest, TestCaseResult, TestRun } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { t } from '../i18n.tsx'
import { ErrorLine } from '../ui.tsx'
import { mayManage } from './access.ts'
import {
  createTest,
  deleteTest,
  getRun,
  getTestSettings,
  listRuns,
  listTests,
  saveTestSettings,
  startRun,
  updateTest,
} from './tests-client.ts'
import { TestForm } from './tests-form.tsx'

/** How often a run in progress is asked for its progress. */
const POLL_MS = 1500

const statusName = (status: string) =>
  ({
    queued: t('Queued'),
    running: t('Running'),
    passed: t('Passed'),
    failed: t('Failed'),
    error: t('Could not run'),
  })[status] ?? status

/** One test's result: its verdicts with their reasons, and the conversation it had. */
const Result = ({ result }: { result: TestCaseResult }) => (
  <li>
    <strong>{result.name}</strong>{' '}
    <span class={result.status === 'passed' ? 'badge live' : 'badge'}>{statusName(result.status)}</span>
    {result.error ? <p class="error">{result.error}</p> : null}
    <ul>
      {result.verdicts.map((verdict, index) => (
        <li key={index}>
          {verdict.passed ? '✓' : '✗'} <code>{verdict.expectation.type}</code> {verdict.reason}
        </li>
      ))}
    </ul>
    <details>
      <summary>{t('Conversation')}</summary>
      <ol>
        {result.transcript.map((turn, index) => (
          <li key={index}>
            {turn.role === 'visitor' ? t('Visitor') : turn.role === 'agent' ? t('Agent') : t('Tool')}:{' '}
            {turn.role === 'tool'
              ? `${turn.name} ${JSON.stringify(turn.arguments ?? {})} (${turn.answeredBy})`
              : turn.content}
          </li>
        ))}
      </ol>
    </details>
  </li>
)

/**
 * The agent's tests: the cases, whether publishing waits for them, a run against the live version
 * or the draft with its progress, and the last run's verdicts and reasons.
 */
export const TestsPanel = ({ agent }: { agent: AgentV1 }) => {
  const [tests, setTests] = useState<AgentTest[]>([])
  const [runBeforePublish, setRunBeforePublish] = useState(false)
  const [run, setRun] = useState<TestRun | null>(null)
  const [editing, setEditing] = useState<AgentTest | 'new' | null>(null)
  const [error, setError] = useState<unknown>(null)
  const mayChange = mayManage(agent)
  const load = async () => {
    const [loaded, settings, runs] = await Promise.all([
      listTests(agent.id),
      getTestSettings(agent.id),
      listRuns(agent.id),
    ])
    setTests(loaded)
    setRunBeforePublish(settings.runBeforePublish)
    setRun(runs[0] ? await getRun(agent.id, runs[0].id) : null)
  }
  useEffect(() => {
    load().catch(setError)
  }, [agent.id])
  // A run in progress is followed until it ends.
  useEffect(() => {
    if (!run || (run.status !== 'queued' && run.status !== 'running')) return
    const timer = setTimeout(() => getRun(agent.id, run.id).then(setRun, setError), POLL_MS)
    return () => clearTimeout(timer)
  }, [run])

  const act = async (work: () => Promise<unknown>) => {
    setError(null)
    try {
      await work()
    } catch (caught) {
      setError(caught)
    }
  }
  const save = async (input: CreateAgentTest) => {
    if (editing === 'new') await createTest(agent.id, input)
    else if (editing) await updateTest(agent.id, editing.id, input)
    setEditing(null)
    await load()
  }
  const toggleGate = (on: boolean) =>
    act(async () =>
      setRunBeforePublish((await saveTestSettings(agent.id, { runBeforePublish: on })).runBeforePublish),
    )
  return (
    <section class="card" aria-labelledby="tests-title" id="tests">
      <h2 id="tests-title">{t('Tests')}</h2>
      <p class="muted">
        {t(
          'A simulated visitor talks to the agent; each expectation passes or fails with its reason. Runs are billed like chat.',
        )}
      </p>
      {mayChange ? (
        <label>
          <input
            type="checkbox"
            checked={runBeforePublish}
            onChange={(event) => toggleGate((event.currentTarget as HTMLInputElement).checked)}
          />{' '}
          {t('Run the tests before publishing (a failing draft is not published)')}
        </label>
      ) : null}
      <ul class="tests">
        {tests.map((test) => (
          <li key={test.id}>
            {test.name}{' '}
            {mayChange ? (
              <>
                <button type="button" class="link" onClick={() => setEditing(test)}>
                  {t('Edit')}
                </button>
                <button
                  type="button"
                  class="link"
                  onClick={() =>
                    act(async () => {
                      await deleteTest(agent.id, test.id)
                      await load()
                    })
                  }
                >
                  {t('Delete')}
                </button>
              </>
            ) : null}
          </li>
        ))}
      </ul>
      {tests.length === 0 ? <p class="muted">{t('No tests yet.')}</p> : null}
      {editing ? (
        <TestForm
          key={editing === 'new' ? 'new' : editing.id}
          test={editing === 'new' ? null : editing}
          onSave={save}
          onCancel={() => setEditing(null)}
        />
      ) : mayChange ? (
        <div class="row">
          <button type="button" onClick={() => setEditing('new')}>
            {t('New test')}
          </button>
          {tests.length > 0 ? (
            <>
              <button
                type="button"
                onClick={() => act(async () => setRun(await startRun(agent.id, undefined)))}
              >
                {t('Run on the live version')}
              </button>
              <button
                type="button"
                onClick={() => act(async () => setRun(await startRun(agent.id, 'draft')))}
              >
                {t('Run on the draft')}
              </button>
            </>
          ) : null}
        </div>
      ) : null}
      <ErrorLine error={error} />
      {run ? (
        <div aria-live="polite">
          <h3>
            {t('Last run')}: {statusName(run.status)}{' '}
            <span class="muted">
              {t('{done} of {total} done, {passed} passed', {
                done: run.done,
                total: run.total,
                passed: run.passed,
              })}{' '}
              · {run.version === 'draft' ? t('draft') : t('Version {number}', { number: run.version })}
              {run.runner === 'voice_worker' ? (
                <>
                  {' '}
                  ·{' '}
                  {run.status === 'queued' ? t('waiting for the voice worker') : t('run by the voice worker')}
                </>
              ) : null}
            </span>
          </h3>
          {run.error ? <p class="error">{run.error}</p> : null}
          <ul>
            {run.results.map((result) => (
              <Result key={result.testId} result={result} />
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  )
}
