import { useEffect, useState } from 'preact/hooks'
import { Field } from '../../ui.tsx'

type Checker = typeof import('./schema-check.ts')
let checker: Promise<Checker> | null = null
/** The checks' module (and its validator), fetched once, the first time a JSON field shows. */
const loadChecker = () => {
  checker ??= import('./schema-check.ts').catch((error: unknown) => {
    checker = null
    throw error
  })
  return checker
}

/** A JSON field's problems, as the editor shows them (for a form to refuse to send it). */
export const problemsOfSchema = async (text: string, root: string, options?: { optional?: boolean }) =>
  (await loadChecker()).checkSchemaText(text, root, options)

export const problemsOfArguments = async (text: string, schema: unknown) =>
  (await loadChecker()).checkArgumentsText(text, schema)

/**
 * A monospace textarea for JSON, checked as the owner types (`check`, run on every change once
 * the checks' module is here); what is wrong shows under it and is read out politely, with what
 * the API said (`problem`) below that. Both are tied to the textarea (aria-describedby).
 */
export const JsonEditor = ({
  name,
  label,
  hint,
  value,
  onInput,
  problem,
  check,
  rows = 8,
  placeholder,
}: {
  name: string
  label: string
  hint?: string | undefined
  value: string
  onInput: (value: string) => void
  problem?: string | undefined
  check: (checks: Checker, text: string) => string[]
  rows?: number
  placeholder?: string | undefined
}) => {
  const [problems, setProblems] = useState<string[]>([])
  useEffect(() => {
    let isCurrent = true
    loadChecker().then(
      (checks) => {
        if (isCurrent) setProblems(check(checks, value))
      },
      () => undefined, // The server still checks what is sent.
    )
    return () => {
      isCurrent = false
    }
  }, [value, check])
  const describedBy = [hint ? `${name}-hint` : '', `${name}-check`, problem ? `${name}-problem` : '']
    .filter(Boolean)
    .join(' ')
  return (
    <Field label={label} name={name} hint={hint} problem={problem}>
      <textarea
        id={name}
        name={name}
        class="code"
        rows={rows}
        spellcheck={false}
        autocomplete="off"
        autocapitalize="off"
        dir="ltr"
        placeholder={placeholder}
        value={value}
        aria-describedby={describedBy}
        aria-invalid={problems.length > 0 || Boolean(problem)}
        onInput={(event) => onInput(event.currentTarget.value)}
      />
      <div id={`${name}-check`} class="error checks" aria-live="polite">
        {problems.map((line) => (
          <p>{line}</p>
        ))}
      </div>
    </Field>
  )
}

/** The checks of an object schema field (a function's parameters, an agent's analysis schema). */
export const schemaCheck =
  (root: string, options?: { optional?: boolean }) => (checks: Checker, text: string) =>
    checks.checkSchemaText(text, root, options)
