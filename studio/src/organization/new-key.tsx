import type { ApiKeyType, CreatedApiKey } from '@parley/shared'
import { useLayoutEffect, useRef, useState } from 'preact/hooks'
import { t } from '../i18n.tsx'
import { describedBy, ErrorLine, Field, problemOf } from '../ui.tsx'
import { createKey, parseDomains } from './client.ts'

/** The owners' form for a new key: a secret key for servers, or a widget key for websites. */
export const NewKeyForm = ({ onCreated }: { onCreated: (key: CreatedApiKey) => void }) => {
  const [type, setType] = useState<ApiKeyType>('secret')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (event: SubmitEvent) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const data = new FormData(form)
    setBusy(true)
    setError(null)
    try {
      const created = await createKey({
        name: String(data.get('keyName') ?? ''),
        type,
        ...(type === 'widget' ? { allowedDomains: parseDomains(String(data.get('keyDomains') ?? '')) } : {}),
      })
      form.reset()
      onCreated(created)
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(false)
    }
  }
  const nameProblem = problemOf(error, 'name')
  const domainsProblem = problemOf(error, 'allowedDomains')
  return (
    <form class="card" onSubmit={submit} aria-labelledby="new-api-key-title">
      <h2 id="new-api-key-title">{t('New API key')}</h2>
      <fieldset>
        <legend>{t('Kind of key')}</legend>
        <label class="choice">
          <input
            type="radio"
            name="keyType"
            value="secret"
            checked={type === 'secret'}
            onChange={() => setType('secret')}
          />
          <span>{t('Secret key: for your own servers, to call the API. Never put it in a web page.')}</span>
        </label>
        <label class="choice">
          <input
            type="radio"
            name="keyType"
            value="widget"
            checked={type === 'widget'}
            onChange={() => setType('widget')}
          />
          <span>{t('Widget key: for the chat widget on your website, only from the domains you list.')}</span>
        </label>
      </fieldset>
      <Field label={t('Name')} name="keyName" problem={nameProblem}>
        <input {...describedBy('keyName', { problem: nameProblem })} required maxLength={50} />
      </Field>
      {type === 'widget' ? (
        <Field
          label={t('Allowed domains')}
          name="keyDomains"
          problem={domainsProblem}
          hint={t('Separated by commas or spaces, e.g. shop.example.com. A domain covers its subdomains.')}
        >
          <input {...describedBy('keyDomains', { problem: domainsProblem, hint: true })} required />
        </Field>
      ) : null}
      {nameProblem || domainsProblem ? null : <ErrorLine error={error} />}
      <button type="submit" class="primary" disabled={busy} aria-busy={busy}>
        {busy ? t('Creating…') : t('Create key')}
      </button>
    </form>
  )
}

/**
 * The full key, right after it was made: the only time it is ever shown (the server keeps its
 * hash). Focus moves here so a screen reader reads the warning first.
 */
export const CreatedKeyBox = ({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) => {
  const [copied, setCopied] = useState(false)
  const box = useRef<HTMLElement>(null)
  useLayoutEffect(() => box.current?.focus(), [created.id])
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.key)
      setCopied(true)
    } catch {
      // No clipboard (permission or an insecure page): the key stays selectable in the box.
      setCopied(false)
    }
  }
  return (
    <section class="card notice once" ref={box} tabIndex={-1} aria-labelledby="created-key-title">
      <h2 id="created-key-title">{t('Your new key: {name}', { name: created.name })}</h2>
      <p>
        <strong>
          {t(
            'Copy it now. It is shown only this once: Parley keeps only a fingerprint of it. If you lose it, revoke it and create another.',
          )}
        </strong>
      </p>
      <pre class="snippet" id="created-key" dir="ltr">
        {created.key}
      </pre>
      <div class="row">
        <button type="button" onClick={copy}>
          {copied ? t('Copied') : t('Copy key')}
        </button>
        <button type="button" onClick={onDone}>
          {t('I have stored it')}
        </button>
      </div>
    </section>
  )
}
