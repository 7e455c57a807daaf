import type { ComponentChildren } from 'preact'
import { ApiError } from './api.ts'

/** An error the API answered, in words, where it happened (role=alert: read out at once). */
export const ErrorLine = ({ error }: { error: unknown }) =>
  error ? (
    <p class="error" role="alert">
      {error instanceof ApiError || error instanceof Error ? error.message : String(error)}
    </p>
  ) : null

/** A labelled field; `problem` is what the API said about it, tied to the input for screen readers. */
export const Field = ({
  label,
  name,
  problem,
  children,
}: {
  label: string
  name: string
  problem?: string | undefined
  children: ComponentChildren
}) => (
  <label class="field" for={name}>
    <span>{label}</span>
    {children}
    {problem ? (
      <small class="error" id={`${name}-problem`}>
        {problem}
      </small>
    ) : null}
  </label>
)

/** The problem the API named for a field of a refused request, if any. */
export const problemOf = (error: unknown, field: string) =>
  error instanceof ApiError ? error.fields[field] : undefined

export const Loading = () => (
  <p class="muted" aria-live="polite">
    Loading…
  </p>
)
