import { useEffect, useState } from 'preact/hooks'
import { t } from '../i18n.tsx'
import { describedBy, Field } from '../ui.tsx'
import type { WidgetChoices } from './choices.ts'
import { type AgentRow, hasProblems } from './customiser.tsx'
import { snippetFor } from './snippet.ts'

const WIDGET_KEY = /^tk_widget_[\w-]+$/

/**
 * The exact tag to paste before </body>, as the choices stand. It needs a widget key in full,
 * which the API shows only once: the one made on this page fills in by itself, and one kept from
 * before can be pasted (it never leaves this page).
 */
export const ScriptTag = ({
  agent,
  choices,
  widgetKey,
  onKey,
}: {
  agent: AgentRow
  choices: WidgetChoices
  widgetKey: string
  onKey: (key: string) => void
}) => {
  const isBlocked = hasProblems(choices)
  const [copied, setCopied] = useState<'no' | 'yes' | 'refused'>('no')
  const key = widgetKey.trim()
  const keyProblem = key && !WIDGET_KEY.test(key) ? t('A widget key starts with tk_widget_.') : undefined
  const snippet = key && !keyProblem ? snippetFor({ origin: location.origin, agent, key, choices }) : null
  useEffect(() => setCopied('no'), [snippet])

  const copy = async () => {
    if (!snippet || isBlocked) return
    try {
      await navigator.clipboard.writeText(snippet)
      setCopied('yes')
    } catch {
      setCopied('refused')
    }
  }

  return (
    <section class="card" aria-labelledby="script-tag-title">
      <h2 id="script-tag-title">{t('Paste this before </body>')}</h2>
      <Field
        label={t('Widget key in the tag')}
        name="widgetKey"
        hint={t(
          'Filled in when you create a key above. A key is shown only once: paste one you kept to reuse it.',
        )}
        problem={keyProblem}
      >
        <input
          {...describedBy('widgetKey', { problem: keyProblem, hint: true })}
          value={widgetKey}
          placeholder="tk_widget_…"
          dir="ltr"
          autocomplete="off"
          spellcheck={false}
          onInput={(event) => onKey(event.currentTarget.value)}
        />
      </Field>
      {snippet ? (
        <>
          <pre class="snippet" id="snippet" dir="ltr">
            {snippet}
          </pre>
          <div class="row" aria-live="polite">
            <button
              type="button"
              class="primary"
              onClick={copy}
              disabled={isBlocked}
              aria-describedby={isBlocked ? 'copy-blocked' : undefined}
            >
              {copied === 'yes' ? t('Copied') : t('Copy')}
            </button>
            {isBlocked ? (
              <small class="error" id="copy-blocked">
                {t('Fix the choices marked above first.')}
              </small>
            ) : null}
            {copied === 'refused' ? (
              <small class="error">
                {t('The browser did not let the page copy: select the tag and copy it.')}
              </small>
            ) : null}
          </div>
        </>
      ) : (
        <p class="muted">{t('The tag shows here once it has a widget key.')}</p>
      )}
    </section>
  )
}
