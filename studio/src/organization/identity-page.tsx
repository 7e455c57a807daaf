import type { IdentitySecret } from '@parley/shared'
import { useEffect, useRef, useState } from 'preact/hooks'
import { session } from '../api.ts'
import { t } from '../i18n.tsx'
import { ErrorLine, Loading } from '../ui.tsx'
import { readIdentitySecret, rotateIdentitySecret } from './client.ts'
import { when } from './format.tsx'

/** How the owner's server signs a visitor's identifier, in the languages sites are most often built in. */
const snippets = (secret: string) => [
  {
    language: 'Node.js',
    code: `import { createHmac } from 'node:crypto'

// On your server, for the signed-in customer:
const userHash = createHmac('sha256', process.env.PARLEY_IDENTITY_SECRET) // ${secret.slice(0, 6)}…
  .update(customer.id)
  .digest('hex')`,
  },
  {
    language: 'Python',
    code: `import hashlib, hmac, os

user_hash = hmac.new(
    os.environ["PARLEY_IDENTITY_SECRET"].encode(),  # ${secret.slice(0, 6)}…
    customer_id.encode(),
    hashlib.sha256,
).hexdigest()`,
  },
  {
    language: 'PHP',
    code: `$userHash = hash_hmac('sha256', $customerId, getenv('PARLEY_IDENTITY_SECRET')); // ${secret.slice(0, 6)}…`,
  },
  {
    language: 'HTML',
    code: `<parley-widget agent-id="…" key="tk_widget_…"
  user-identifier="<customer id>" user-hash="<userHash>"></parley-widget>`,
  },
]

/**
 * The identity secret: a visitor's user_identifier names their memory only when the owner's own
 * server signed it with this secret (user_hash). Owners and admins see it, copy it and rotate it.
 */
export const IdentityPage = () => {
  const organizationId = session.value?.organization.id ?? ''
  const canSee = session.value?.organization.role !== 'member'
  const [current, setCurrent] = useState<IdentitySecret | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [confirming, setConfirming] = useState(false)
  const [busy, setBusy] = useState(false)
  const [copied, setCopied] = useState(false)
  const confirmButton = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    if (canSee) readIdentitySecret(organizationId).then(setCurrent, setError)
  }, [organizationId])
  useEffect(() => {
    if (confirming) confirmButton.current?.focus()
  }, [confirming])
  const rotate = async () => {
    setBusy(true)
    setError(null)
    try {
      setCurrent(await rotateIdentitySecret(organizationId))
      setConfirming(false)
      setCopied(false)
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(false)
    }
  }
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(current?.secret ?? '')
      setCopied(true)
    } catch {
      setCopied(false)
    }
  }
  return (
    <section aria-labelledby="identity-title">
      <h1 id="identity-title">{t('Identity verification')}</h1>
      <p class="muted">
        {t(
          'A visitor’s user identifier recalls what the agent remembers of them only when your own server signed it: user-hash is the HMAC-SHA256 of the identifier under this secret. Without it the identifier is kept as given, but memory stays with that browser.',
        )}
      </p>
      {!canSee ? (
        <p class="muted">{t('Only owners and admins see the identity secret.')}</p>
      ) : current === null ? (
        error ? (
          <ErrorLine error={error} />
        ) : (
          <Loading />
        )
      ) : (
        <>
          <div class="card">
            <h2 id="identity-secret-title">{t('Identity secret')}</h2>
            <p>
              <strong>{t('Keep it on your server only: never put it in a web page.')}</strong>
            </p>
            <pre class="snippet" id="identity-secret" dir="ltr">
              {current.secret}
            </pre>
            <p class="muted">{t('Made {date}', { date: when(current.createdAt) })}</p>
            <div class="row">
              <button type="button" onClick={copy}>
                {copied ? t('Copied') : t('Copy secret')}
              </button>
              {confirming ? null : (
                <button type="button" onClick={() => setConfirming(true)}>
                  {t('Rotate…')}
                </button>
              )}
            </div>
            {confirming ? (
              <div class="notice" role="alertdialog" aria-labelledby="rotate-title">
                <p id="rotate-title">
                  {t('Rotate the secret? Hashes made with the current one stop working at once.')}
                </p>
                <div class="row">
                  <button
                    type="button"
                    class="danger"
                    ref={confirmButton}
                    disabled={busy}
                    aria-busy={busy}
                    onClick={rotate}
                  >
                    {t('Rotate now')}
                  </button>
                  <button type="button" onClick={() => setConfirming(false)}>
                    {t('Cancel')}
                  </button>
                </div>
              </div>
            ) : null}
            <ErrorLine error={error} />
          </div>
          <h2>{t('Sign the identifier on your server')}</h2>
          {snippets(current.secret).map(({ language, code }) => (
            <figure>
              <figcaption>{language}</figcaption>
              <pre class="snippet" dir="ltr">
                {code}
              </pre>
            </figure>
          ))}
        </>
      )}
    </section>
  )
}
