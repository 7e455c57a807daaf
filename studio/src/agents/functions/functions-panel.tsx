import type { AgentV1, CustomFunction } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { ApiError, session } from '../../api.ts'
import { t } from '../../i18n.tsx'
import { ErrorLine, Loading } from '../../ui.tsx'
import { deleteFunction, listFunctions, setEnabledFunctions } from './client.ts'
import { FunctionForm } from './function-form.tsx'
import { TestCall } from './test-call.tsx'

const PAGE_SIZE = 10
/** The server's MAX_FUNCTIONS_PER_AGENT (the studio takes only types from shared, never zod). */
const MAX_FUNCTIONS_PER_AGENT = 20

/** What the panel shows under a function (one at a time): nothing, its form, or its test call. */
type Open = { kind: 'new' } | { kind: 'edit' | 'test'; id: string } | null

export type FunctionsPanelProps = { agent: AgentV1; onChanged: () => Promise<void> }

/**
 * The agent's custom functions: each with whether the agent may call it, and for owners and admins
 * (who manage them, as the API enforces) add, edit, delete with confirmation and a test call.
 * Members see the functions of agents they created, read only.
 */
export const FunctionsPanel = ({ agent, onChanged }: FunctionsPanelProps) => {
  const [functions, setFunctions] = useState<CustomFunction[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [open, setOpen] = useState<Open>(null)
  const [page, setPage] = useState(0)
  const role = session.value?.organization.role
  const isManager = role === 'owner' || role === 'admin'
  const reload = async () => setFunctions(await listFunctions(agent.id))
  useEffect(() => {
    listFunctions(agent.id).then(setFunctions, setError)
  }, [agent.id])

  const act = async (action: () => Promise<unknown>) => {
    setError(null)
    try {
      await action()
    } catch (caught) {
      setError(caught)
    }
  }
  const enabled = new Set(agent.enabledCustomFunctions)
  const setEnabled = (fn: CustomFunction, isOn: boolean) =>
    act(async () => {
      const ids = (functions ?? []).map((each) => each.id)
      const next = ids.filter((id) => (id === fn.id ? isOn : enabled.has(id)))
      await setEnabledFunctions(agent, next)
      await onChanged()
    })
  const remove = (fn: CustomFunction) =>
    act(async () => {
      if (
        !confirm(t('Delete the function {label}? The agent stops calling it at once.', { label: fn.label }))
      )
        return
      await deleteFunction(agent.id, fn.id)
      setOpen(null)
      await reload()
      await onChanged()
    })
  const saved = async (fn: CustomFunction, isNew: boolean) => {
    setOpen(null)
    await reload()
    // A function added here is one the owner means the agent to call.
    if (isNew) await act(() => setEnabledFunctions(agent, [...agent.enabledCustomFunctions, fn.id]))
    await onChanged()
  }

  if (functions === null) {
    const isHidden = error instanceof ApiError && error.status === 404 && !isManager
    return (
      <section class="card" aria-labelledby="functions-title">
        <h2 id="functions-title">{t('Custom functions')}</h2>
        {isHidden ? (
          <p class="muted">{t("Only the agent's creator, admins and owners see its functions.")}</p>
        ) : error ? (
          <ErrorLine error={error} />
        ) : (
          <Loading />
        )}
      </section>
    )
  }
  const pages = Math.max(1, Math.ceil(functions.length / PAGE_SIZE))
  const shown = functions.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE)
  const isFull = functions.length >= MAX_FUNCTIONS_PER_AGENT
  return (
    <section class="card" aria-labelledby="functions-title">
      <h2 id="functions-title">{t('Custom functions')}</h2>
      <p class="muted">
        {t('Your own https endpoints the agent may call while it talks, with the arguments it fills in.')}
      </p>
      {!agent.functionCallingEnabled && enabled.size > 0 ? (
        <p class="notice">
          {t('Function calling is off in the settings above: the agent calls none of these.')}
        </p>
      ) : null}
      {functions.length === 0 ? <p class="empty">{t('No custom functions yet.')}</p> : null}
      <ul class="functions">
        {shown.map((fn) => (
          <li key={fn.id} class="function">
            <div class="row">
              <strong>{fn.label}</strong> <code>{fn.name}</code>
            </div>
            <p class="muted endpoint" dir="ltr">
              {fn.method} {fn.endpoint}
            </p>
            {fn.description ? <p>{fn.description}</p> : null}
            <div class="row">
              <label class="choice">
                <input
                  type="checkbox"
                  checked={enabled.has(fn.id)}
                  disabled={!isManager}
                  onChange={(event) => setEnabled(fn, event.currentTarget.checked)}
                />
                <span>
                  {t('The agent may call it')}
                  <span class="visually-hidden"> ({fn.label})</span>
                </span>
              </label>
              {isManager ? (
                <>
                  <button
                    type="button"
                    class="small"
                    aria-expanded={open?.kind === 'test' && open.id === fn.id}
                    onClick={() => setOpen({ kind: 'test', id: fn.id })}
                  >
                    {t('Test call')}
                    <span class="visually-hidden"> {fn.label}</span>
                  </button>
                  <button
                    type="button"
                    class="small"
                    aria-expanded={open?.kind === 'edit' && open.id === fn.id}
                    onClick={() => setOpen({ kind: 'edit', id: fn.id })}
                  >
                    {t('Edit')}
                    <span class="visually-hidden"> {fn.label}</span>
                  </button>
                  <button type="button" class="small danger" onClick={() => remove(fn)}>
                    {t('Delete')}
                    <span class="visually-hidden"> {fn.label}</span>
                  </button>
                </>
              ) : null}
            </div>
            {open?.kind === 'edit' && open.id === fn.id ? (
              <FunctionForm
                agentId={agent.id}
                fn={fn}
                onSaved={(updated) => saved(updated, false)}
                onCancel={() => setOpen(null)}
              />
            ) : null}
            {open?.kind === 'test' && open.id === fn.id ? (
              <TestCall agentId={agent.id} fn={fn} onClose={() => setOpen(null)} />
            ) : null}
          </li>
        ))}
      </ul>
      {pages > 1 ? (
        <nav class="row" aria-label={t('Pages of functions')}>
          <button type="button" class="small" disabled={page === 0} onClick={() => setPage(page - 1)}>
            {t('Previous')}
          </button>
          <span>{t('Page {page} of {pages}', { page: page + 1, pages })}</span>
          <button type="button" class="small" disabled={page >= pages - 1} onClick={() => setPage(page + 1)}>
            {t('Next')}
          </button>
        </nav>
      ) : null}
      <ErrorLine error={error} />
      {open?.kind === 'new' ? (
        <FunctionForm
          agentId={agent.id}
          fn={null}
          onSaved={(created) => saved(created, true)}
          onCancel={() => setOpen(null)}
        />
      ) : isManager ? (
        <div>
          <button type="button" disabled={isFull} onClick={() => setOpen({ kind: 'new' })}>
            {t('Add a function')}
          </button>
          {isFull ? (
            <p class="muted">
              {t('An agent can have at most {count} functions.', { count: MAX_FUNCTIONS_PER_AGENT })}
            </p>
          ) : null}
        </div>
      ) : (
        <p class="muted">{t('Owners and admins add, change and test functions.')}</p>
      )}
    </section>
  )
}
