import type { AgentTest, CreateAgentTest, TestExpectation } from '@parley/shared'
import { useState } from 'preact/hooks'
import { t } from '../i18n.tsx'
import { describedBy, ErrorLine, Field, problemOf } from '../ui.tsx'

type Row = { type: TestExpectation['type']; value: string; isPattern: boolean; args: string }

const typeNames = (): Record<Row['type'], string> => ({
  must_say: t('Must say'),
  must_not_say: t('Must not say'),
  must_call: t('Must call the function'),
  must_not_call: t('Must not call the function'),
  must_hand_off: t('Must hand off'),
  must_end: t('Must end the chat'),
  judge: t('A model judges'),
})

const toRow = (expectation: TestExpectation): Row => {
  switch (expectation.type) {
    case 'must_say':
    case 'must_not_say':
      return {
        type: expectation.type,
        value: expectation.text ?? expectation.pattern ?? '',
        isPattern: expectation.pattern !== undefined,
        args: '',
      }
    case 'must_call':
      return {
        type: expectation.type,
        value: expectation.function,
        isPattern: false,
        args: expectation.arguments ? JSON.stringify(expectation.arguments) : '',
      }
    case 'must_not_call':
      return { type: expectation.type, value: expectation.function, isPattern: false, args: '' }
    case 'must_hand_off':
      return { type: expectation.type, value: expectation.agentId ?? '', isPattern: false, args: '' }
    case 'must_end':
      return { type: expectation.type, value: '', isPattern: false, args: '' }
    case 'judge':
      return { type: expectation.type, value: expectation.criterion, isPattern: false, args: '' }
  }
}

/** A row as the API takes it; arguments that are not JSON throw, said next to the form. */
const toExpectation = (row: Row): TestExpectation => {
  switch (row.type) {
    case 'must_say':
    case 'must_not_say':
      return row.isPattern ? { type: row.type, pattern: row.value } : { type: row.type, text: row.value }
    case 'must_call':
      return {
        type: row.type,
        function: row.value,
        ...(row.args.trim() ? { arguments: JSON.parse(row.args) as Record<string, unknown> } : {}),
      }
    case 'must_not_call':
      return { type: row.type, function: row.value }
    case 'must_hand_off':
      return row.value ? { type: row.type, agentId: row.value } : { type: row.type }
    case 'must_end':
      return { type: row.type }
    case 'judge':
      return { type: row.type, criterion: row.value }
  }
}

const read = (event: Event) => (event.currentTarget as HTMLInputElement).value

/** A test case's form: the visitor (scripted turns or a persona), expectations, stubs. */
export const TestForm = ({
  test,
  onSave,
  onCancel,
}: {
  test: AgentTest | null
  onSave: (input: CreateAgentTest) => Promise<void>
  onCancel: () => void
}) => {
  const visitor = test?.visitor
  const [name, setName] = useState(test?.name ?? '')
  const [kind, setKind] = useState<'script' | 'persona'>(visitor?.kind ?? 'script')
  const [turns, setTurns] = useState(visitor?.kind === 'script' ? visitor.turns.join('\n') : '')
  const [persona, setPersona] = useState(visitor?.kind === 'persona' ? visitor.persona : '')
  const [goal, setGoal] = useState(visitor?.kind === 'persona' ? visitor.goal : '')
  const [maxTurns, setMaxTurns] = useState(visitor?.kind === 'persona' ? visitor.maxTurns : 4)
  const [rows, setRows] = useState<Row[]>(
    test?.expectations.map(toRow) ?? [{ type: 'must_say', value: '', isPattern: false, args: '' }],
  )
  const [stubs, setStubs] = useState(test ? JSON.stringify(test.stubs, null, 2) : '{}')
  const [allowRealCalls, setAllowRealCalls] = useState(test?.allowRealCalls ?? false)
  const [error, setError] = useState<unknown>(null)
  const names = typeNames()
  const change = (index: number, patch: Partial<Row>) =>
    setRows((current) => current.map((row, at) => (at === index ? { ...row, ...patch } : row)))

  const submit = async (event: SubmitEvent) => {
    event.preventDefault()
    setError(null)
    try {
      await onSave({
        name,
        visitor:
          kind === 'script'
            ? { kind, turns: turns.split('\n').filter((turn) => turn.trim() !== '') }
            : { kind, persona, goal, maxTurns },
        expectations: rows.map(toExpectation),
        stubs: JSON.parse(stubs || '{}') as Record<string, unknown>,
        allowRealCalls,
        judgeModel: test?.judgeModel ?? null,
      })
    } catch (caught) {
      setError(caught instanceof SyntaxError ? new Error(t('Stubs and arguments must be JSON.')) : caught)
    }
  }
  return (
    <form class="test-form" onSubmit={submit}>
      <Field label={t('Name')} name="test-name" problem={problemOf(error, 'name')}>
        <input {...describedBy('test-name', {})} required value={name} onInput={(e) => setName(read(e))} />
      </Field>
      <Field label={t('Visitor')} name="test-visitor">
        <select id="test-visitor" value={kind} onChange={(e) => setKind(read(e) as 'script' | 'persona')}>
          <option value="script">{t('Scripted turns')}</option>
          <option value="persona">{t('A persona played by a model')}</option>
        </select>
      </Field>
      {kind === 'script' ? (
        <Field label={t('What the visitor says, one turn a line')} name="test-turns">
          <textarea id="test-turns" rows={3} value={turns} onInput={(e) => setTurns(read(e))} />
        </Field>
      ) : (
        <>
          <Field label={t('Persona')} name="test-persona">
            <input id="test-persona" value={persona} onInput={(e) => setPersona(read(e))} />
          </Field>
          <Field label={t('Goal')} name="test-goal">
            <input id="test-goal" value={goal} onInput={(e) => setGoal(read(e))} />
          </Field>
          <Field label={t('Turns at most')} name="test-max-turns">
            <input
              id="test-max-turns"
              type="number"
              min={1}
              max={10}
              value={maxTurns}
              onInput={(e) => setMaxTurns(Number(read(e)))}
            />
          </Field>
        </>
      )}
      <fieldset>
        <legend>{t('Expectations')}</legend>
        {rows.map((row, index) => (
          <div class="row" key={index}>
            <select
              aria-label={t('Expectation')}
              value={row.type}
              onChange={(e) => change(index, { type: read(e) as Row['type'] })}
            >
              {Object.entries(names).map(([type, label]) => (
                <option value={type} key={type}>
                  {label}
                </option>
              ))}
            </select>
            {row.type === 'must_end' ? null : (
              <input
                aria-label={t('Value')}
                value={row.value}
                onInput={(e) => change(index, { value: read(e) })}
              />
            )}
            {row.type === 'must_say' || row.type === 'must_not_say' ? (
              <label>
                <input
                  type="checkbox"
                  checked={row.isPattern}
                  onChange={(e) =>
                    change(index, { isPattern: (e.currentTarget as HTMLInputElement).checked })
                  }
                />{' '}
                {t('Pattern')}
              </label>
            ) : null}
            {row.type === 'must_call' ? (
              <input
                aria-label={t('Arguments (JSON, partial)')}
                placeholder={t('Arguments (JSON, partial)')}
                value={row.args}
                onInput={(e) => change(index, { args: read(e) })}
              />
            ) : null}
            <button type="button" class="link" onClick={() => setRows(rows.filter((_, at) => at !== index))}>
              {t('Remove')}
            </button>
          </div>
        ))}
        <button
          type="button"
          class="link"
          onClick={() => setRows([...rows, { type: 'must_say', value: '', isPattern: false, args: '' }])}
        >
          {t('Add an expectation')}
        </button>
      </fieldset>
      <Field
        label={t('Stubs: function name → its answer (JSON)')}
        name="test-stubs"
        problem={problemOf(error, 'stubs')}
      >
        <textarea id="test-stubs" rows={3} value={stubs} onInput={(e) => setStubs(read(e))} />
      </Field>
      <label>
        <input
          type="checkbox"
          checked={allowRealCalls}
          onChange={(e) => setAllowRealCalls((e.currentTarget as HTMLInputElement).checked)}
        />{' '}
        {t('Call the real endpoint of functions without a stub')}
      </label>
      <ErrorLine error={error} />
      <div class="row">
        <button type="submit">{t('Save test')}</button>
        <button type="button" onClick={onCancel}>
          {t('Cancel')}
        </button>
      </div>
    </form>
  )
}
