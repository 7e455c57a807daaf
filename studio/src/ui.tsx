import type { ComponentChildren } from 'preact'
import { ApiError } from './api.ts'
import { t } from './i18n.tsx'
import { linkProps } from './router.ts'

/** The organization settings page the contract's `redirectUrl` names. */
export const PROVIDER_KEYS_PATH = '/settings/organization/provider-keys'

/**
 * An error the API answered, in words, where it happened (role=alert: read out at once). A
 * missing provider key leads to the page that takes one.
 */
export const ErrorLine = ({ error }: { error: unknown }) =>
  error ? (
    <p class="error" role="alert">
      {error instanceof ApiError || error instanceof Error ? error.message : String(error)}
      {error instanceof ApiError && error.code === 'missing_provider_key' ? (
        <>
          {' '}
          <a {...linkProps(PROVIDER_KEYS_PATH)}>{t('Add your provider keys')}</a>
        </>
      ) : null}
    </p>
  ) : null

/** A labelled field; `problem` is what the API said about it, tied to the input for screen readers. */
export const Field = ({
  label,
  name,
  problem,
  hint,
  children,
}: {
  label: string
  name: string
  problem?: string | undefined
  hint?: string | undefined
  children: ComponentChildren
}) => (
  <div class="field">
    <label for={name}>{label}</label>
    {hint ? (
      <small class="muted" id={`${name}-hint`}>
        {hint}
      </small>
    ) : null}
    {children}
    {problem ? (
      <small class="error" id={`${name}-problem`}>
        {problem}
      </small>
    ) : null}
  </div>
)

/** The attributes that tie an input to its hint and to the problem the API named for it. */
export const describedBy = (
  name: string,
  { problem, hint }: { problem?: string | undefined; hint?: boolean },
) => {
  const ids = [hint ? `${name}-hint` : '', problem ? `${name}-problem` : ''].filter(Boolean).join(' ')
  return {
    id: name,
    name,
    ...(ids ? { 'aria-describedby': ids } : {}),
    ...(problem ? { 'aria-invalid': true } : {}),
  }
}

/**
 * The problem the API named for a field of a refused request, if any: a validation issue naming
 * it, or a rule's message that starts with the field's name ("webhookUrl must be an https URL").
 */
export const problemOf = (error: unknown, field: string) => {
  if (!(error instanceof ApiError)) return undefined
  const issue = Object.entries(error.fields).find(([name]) => name === field || name.startsWith(`${field}.`))
  if (issue) return issue[1]
  const isNamedInMessage =
    Object.keys(error.fields).length === 0 && new RegExp(`^${field}\\b(?!\\.)`).test(error.message)
  return isNamedInMessage ? error.message : undefined
}

export const Loading = () => (
  <p class="muted" aria-live="polite">
    {t('Loading…')}
  </p>
)
