import type { WebhookEventName } from '@parley/shared'
import { useState } from 'preact/hooks'
import { ApiError, api } from '../api.ts'
import { t } from '../i18n.tsx'
import { describedBy, ErrorLine, Field } from '../ui.tsx'
import { JsonEditor, schemaCheck } from './functions/json-editor.tsx'
import type { DraftProps } from './settings-tools.tsx'

/** Every event an agent's webhook may receive (webhookEventNames in shared), in words. */
const eventNames = (): Record<WebhookEventName, string> => ({
  'chat.ended': t('A chat ended'),
  'call.ended': t('A call ended'),
  'conversation.analyzed': t('A chat was analysed'),
  'call.analyzed': t('A call was analysed'),
  'batch.completed': t('A batch of calls finished'),
  'batch.failed': t('A batch of calls failed'),
  'call.transferred': t('A call was transferred to a person'),
  'contact.opted_out': t('Someone asked not to be called again'),
})

/** A schema's rule names the place in it ("analysisSchema.type must be …"): still this field's. */
const schemaProblemOf = (error: unknown, fallback: string | undefined) =>
  fallback ??
  (error instanceof ApiError && error.message.startsWith('analysisSchema') ? error.message : undefined)

const analysisCheck = schemaCheck('analysisSchema', { optional: true })

/** The fields post-call analysis fills in, as an object JSON Schema checked as it is typed. */
export const AnalysisSchemaField = ({ draft, set, problem, error }: DraftProps & { error: unknown }) => (
  <JsonEditor
    name="analysisSchema"
    label={t('Analysis fields (JSON Schema, optional)')}
    hint={t('An object schema of what to pull from each conversation, e.g. the order number. Empty: none.')}
    value={draft.analysisSchema}
    onInput={(analysisSchema) => set({ analysisSchema })}
    problem={schemaProblemOf(error, problem('analysisSchema'))}
    check={analysisCheck}
    rows={6}
    placeholder='{"type": "object", "properties": {"orderNumber": {"type": "string"}}}'
  />
)

/** A new signing secret for the agent's webhooks, shown once, right after it is made. */
const WebhookSecret = ({ agentId }: { agentId: string }) => {
  const [secret, setSecret] = useState<string | null>(null)
  const [copied, setCopied] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const rotate = async () => {
    if (!confirm(t('Make a new signing secret? The current one stops working at once.'))) return
    setError(null)
    setBusy(true)
    try {
      const answer = await api<{ data: { webhookSecret: string } }>(
        `/v1/agents/${encodeURIComponent(agentId)}/webhook-secret`,
        { method: 'POST' },
      )
      setSecret(answer.data.webhookSecret)
      setCopied(false)
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(false)
    }
  }
  const copy = async () => {
    await navigator.clipboard?.writeText(secret ?? '').catch(() => undefined)
    setCopied(true)
  }
  return (
    <div class="field">
      <span class="label" id="webhook-secret-label">
        {t('Signing secret')}
      </span>
      <small class="muted" id="webhook-secret-hint">
        {t('Your endpoint checks the X-Parley-Signature header with it. It is shown once, when it is made.')}
      </small>
      <div>
        <button
          type="button"
          class="small"
          disabled={busy}
          aria-describedby="webhook-secret-label webhook-secret-hint"
          onClick={rotate}
        >
          {busy ? t('Making a secret…') : t('Make a new signing secret')}
        </button>
      </div>
      {secret ? (
        <div class="notice" role="status">
          <p>{t('Copy it now: it will not be shown again.')}</p>
          <code class="snippet secret" id="webhook-secret" dir="ltr">
            {secret}
          </code>
          <button type="button" class="small" onClick={copy}>
            {copied ? t('Copied') : t('Copy')}
          </button>
        </div>
      ) : null}
      <ErrorLine error={error} />
    </div>
  )
}

/** Where conversation events go, which of them, and the secret that signs them. */
export const WebhookFieldset = ({ draft, set, problem, agentId }: DraftProps & { agentId: string }) => {
  const events = eventNames()
  const eventsProblem = problem('webhookEvents')
  return (
    <fieldset>
      <legend>{t('Webhook')}</legend>
      <Field
        label={t('Webhook URL (https; conversation events are sent there)')}
        name="webhookUrl"
        problem={problem('webhookUrl')}
      >
        <input
          {...describedBy('webhookUrl', { problem: problem('webhookUrl') })}
          value={draft.webhookUrl}
          onInput={(event) => set({ webhookUrl: event.currentTarget.value })}
          type="url"
          dir="ltr"
          placeholder="https://shop.example.com/parley"
        />
      </Field>
      <fieldset aria-describedby={eventsProblem ? 'webhookEvents-problem' : undefined}>
        <legend>{t('Events sent')}</legend>
        {(Object.keys(events) as WebhookEventName[]).map((name) => (
          <label class="choice">
            <input
              type="checkbox"
              name="webhookEvents"
              value={name}
              checked={draft.webhookEvents.includes(name)}
              aria-invalid={eventsProblem ? true : undefined}
              onChange={(event) =>
                set({
                  webhookEvents: event.currentTarget.checked
                    ? [...draft.webhookEvents.filter((each) => each !== name), name]
                    : draft.webhookEvents.filter((each) => each !== name),
                })
              }
            />
            <span>
              {events[name]} <code class="muted">{name}</code>
            </span>
          </label>
        ))}
        {eventsProblem ? (
          <small class="error" id="webhookEvents-problem">
            {eventsProblem}
          </small>
        ) : null}
      </fieldset>
      <WebhookSecret agentId={agentId} />
    </fieldset>
  )
}
