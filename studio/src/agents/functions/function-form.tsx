import type { CustomFunction, UpdateFunction } from '@parley/shared'
import { useState } from 'preact/hooks'
import { ApiError } from '../../api.ts'
import { t } from '../../i18n.tsx'
import { describedBy, ErrorLine, Field, problemOf } from '../../ui.tsx'
import { createFunction, type NewFunction, updateFunction } from './client.ts'
import { JsonEditor, problemsOfSchema, schemaCheck } from './json-editor.tsx'

/** The methods the API takes (functionMethods in shared). */
const METHODS = ['POST', 'GET', 'PUT', 'PATCH'] as const

type Draft = {
  label: string
  name: string
  description: string
  endpoint: string
  method: string
  headers: string
  parameters: string
}

const EMPTY_PARAMETERS = '{\n  "type": "object",\n  "properties": {},\n  "required": []\n}'
const PARAMETERS_EXAMPLE =
  '{"type": "object", "properties": {"orderNumber": {"type": "string", "description": "The order number"}}, "required": ["orderNumber"]}'

const draftOf = (fn: CustomFunction | null): Draft => ({
  label: fn?.label ?? '',
  name: fn?.name ?? '',
  description: fn?.description ?? '',
  endpoint: fn?.endpoint ?? '',
  method: fn?.method ?? 'POST',
  // Stored header values come back masked: typing them again is the only way to change them.
  headers: '',
  parameters: fn ? JSON.stringify(fn.parameters, null, 2) : EMPTY_PARAMETERS,
})

/** A function's name from its label, as the server wants it: snake_case, from a letter. */
const nameFrom = (label: string) =>
  label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^[^a-z]+|_+$/g, '')
    .slice(0, 64)

/** "Name: value" lines as headers; a line that is not one is named. */
const readHeaders = (text: string): { headers: Record<string, string> } | { problem: string } => {
  const headers: Record<string, string> = {}
  const lines = text.split('\n')
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue
    const colon = line.indexOf(':')
    if (colon <= 0)
      return { problem: t('Line {line}: write each header as Name: value', { line: index + 1 }) }
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim()
  }
  return { headers }
}

const parametersCheck = schemaCheck('parameters')

/**
 * A custom function's fields as the API defines them; a new one, or the changes to `fn`. The
 * parameters are checked as they are typed and must be a schema the server takes before the form
 * sends anything; the API's words about a field show under it.
 */
export const FunctionForm = ({
  agentId,
  fn,
  onSaved,
  onCancel,
}: {
  agentId: string
  fn: CustomFunction | null
  onSaved: (saved: CustomFunction) => Promise<void>
  onCancel: () => void
}) => {
  const saved = draftOf(fn)
  const [draft, setDraft] = useState<Draft>(saved)
  const [removeHeaders, setRemoveHeaders] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const storedHeaders = Object.entries(fn?.headers ?? {})
  const isNew = fn === null

  const set = (changes: Partial<Draft>) => setDraft({ ...draft, ...changes })
  const headersRead = readHeaders(draft.headers)
  const problem = (field: keyof Draft) => {
    if (field === 'headers' && 'problem' in headersRead) return headersRead.problem
    if (field === 'name' && error instanceof ApiError && error.status === 409) return error.message
    return problemOf(error, field)
  }
  const text = (field: keyof Draft) => ({
    ...describedBy(`fn-${field}`, { problem: problem(field) }),
    value: draft[field],
    onInput: (event: Event) => set({ [field]: (event.currentTarget as HTMLInputElement).value }),
  })

  const bodyOf = (headers: Record<string, string>): NewFunction | UpdateFunction => {
    const all = {
      label: draft.label,
      name: draft.name,
      description: draft.description,
      endpoint: draft.endpoint,
      method: draft.method as NewFunction['method'],
      parameters: JSON.parse(draft.parameters) as Record<string, unknown>,
    }
    if (isNew) return { ...all, headers }
    const changed = Object.fromEntries(
      Object.entries(all).filter(([field]) => draft[field as keyof Draft] !== saved[field as keyof Draft]),
    )
    const headerChange = removeHeaders || Object.keys(headers).length > 0 ? { headers } : {}
    return { id: fn.id, ...changed, ...headerChange }
  }

  const submit = async (event: SubmitEvent) => {
    event.preventDefault()
    if ('problem' in headersRead) return document.getElementById('fn-headers')?.focus()
    if ((await problemsOfSchema(draft.parameters, 'parameters')).length > 0)
      return document.getElementById('fn-parameters')?.focus()
    setError(null)
    setBusy(true)
    try {
      const body = bodyOf(headersRead.headers)
      const answer = isNew
        ? await createFunction(agentId, body as NewFunction)
        : await updateFunction(agentId, body as UpdateFunction)
      await onSaved(answer)
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(false)
    }
  }
  const fields: Array<keyof Draft> = [
    'label',
    'name',
    'description',
    'endpoint',
    'method',
    'headers',
    'parameters',
  ]
  const isClaimed = fields.some((field) => problem(field) !== undefined)
  return (
    <form class="card function-form" onSubmit={submit} aria-labelledby="fn-form-title">
      <h3 id="fn-form-title">{isNew ? t('New function') : t('Edit {label}', { label: fn.label })}</h3>
      <Field label={t('Label')} name="fn-label" problem={problem('label')}>
        <input
          {...text('label')}
          required
          maxLength={100}
          onInput={(event) => {
            const label = event.currentTarget.value
            // A new function's name follows its label until the owner edits the name.
            const followsLabel = isNew && draft.name === nameFrom(draft.label)
            set({ label, ...(followsLabel ? { name: nameFrom(label) } : {}) })
          }}
        />
      </Field>
      <Field
        label={t('Name (what the agent calls)')}
        name="fn-name"
        hint={t('snake_case: a-z, 0-9 and _, starting with a letter')}
        problem={problem('name')}
      >
        <input
          {...text('name')}
          {...describedBy('fn-name', { problem: problem('name'), hint: true })}
          required
          maxLength={64}
          dir="ltr"
          autocomplete="off"
        />
      </Field>
      <Field
        label={t('When to call it (for the agent)')}
        name="fn-description"
        problem={problem('description')}
      >
        <textarea {...text('description')} rows={2} maxLength={1000} />
      </Field>
      <div class="row function-address">
        <Field label={t('Method')} name="fn-method" problem={problem('method')}>
          <select {...text('method')} onChange={(event) => set({ method: event.currentTarget.value })}>
            {METHODS.map((method) => (
              <option value={method}>{method}</option>
            ))}
          </select>
        </Field>
        <Field label={t('Endpoint (https)')} name="fn-endpoint" problem={problem('endpoint')}>
          <input
            {...text('endpoint')}
            type="url"
            required
            dir="ltr"
            placeholder="https://shop.example.com/api/orders"
          />
        </Field>
      </div>
      <Field
        label={t('Headers (one per line, Name: value)')}
        name="fn-headers"
        hint={
          storedHeaders.length > 0
            ? t('Stored: {headers}. Leave empty to keep them; type every header to replace them.', {
                headers: storedHeaders.map(([name, value]) => `${name} ${value}`).join(', '),
              })
            : t('Sent on every call, e.g. Authorization: Bearer …')
        }
        problem={problem('headers')}
      >
        <textarea
          {...text('headers')}
          {...describedBy('fn-headers', { problem: problem('headers'), hint: true })}
          class="code"
          rows={2}
          dir="ltr"
          spellcheck={false}
          autocomplete="off"
        />
      </Field>
      {storedHeaders.length > 0 ? (
        <label class="choice">
          <input
            type="checkbox"
            id="fn-remove-headers"
            checked={removeHeaders}
            onChange={(event) => setRemoveHeaders(event.currentTarget.checked)}
          />
          <span>{t('Remove the stored headers (unless replaced above)')}</span>
        </label>
      ) : null}
      <JsonEditor
        name="fn-parameters"
        label={t('Parameters (JSON Schema)')}
        hint={t(
          'An object schema: the arguments the agent fills in. Property types: string, number, boolean, array, object.',
        )}
        value={draft.parameters}
        onInput={(parameters) => set({ parameters })}
        problem={problem('parameters')}
        check={parametersCheck}
        placeholder={PARAMETERS_EXAMPLE}
      />
      {isClaimed ? null : <ErrorLine error={error} />}
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? t('Saving…') : isNew ? t('Add function') : t('Save function')}
        </button>
        <button type="button" onClick={onCancel}>
          {t('Cancel')}
        </button>
      </div>
    </form>
  )
}
