import type { Session } from '@parley/shared'
import { useState } from 'preact/hooks'
import { api, signIn } from './api.ts'
import { LanguagePicker, t } from './i18n.tsx'
import { ThemePicker } from './theme.tsx'
import { describedBy, ErrorLine, Field, problemOf } from './ui.tsx'

/** Sign in, or sign up (a new organization with its owner): the studio's first page. */
export const AuthPage = () => {
  const [mode, setMode] = useState<'signin' | 'signup'>('signin')
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)

  const submit = async (event: SubmitEvent) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget as HTMLFormElement)
    const value = (name: string) => String(form.get(name) ?? '')
    setBusy(true)
    setError(null)
    try {
      const next =
        mode === 'signup'
          ? await api<Session>('/api/auth/signup', {
              method: 'POST',
              json: {
                organizationName: value('organizationName'),
                name: value('name'),
                email: value('email'),
                password: value('password'),
              },
            })
          : await api<Session>('/api/auth/login', {
              method: 'POST',
              json: { email: value('email'), password: value('password') },
            })
      signIn(next)
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(false)
    }
  }

  return (
    <main class="auth">
      <div class="row">
        <h1>Parley Studio</h1>
        <LanguagePicker />
        <ThemePicker />
      </div>
      <div class="tabs">
        <button type="button" aria-pressed={mode === 'signin'} onClick={() => setMode('signin')}>
          {t('Sign in')}
        </button>
        <button type="button" aria-pressed={mode === 'signup'} onClick={() => setMode('signup')}>
          {t('Create an account')}
        </button>
      </div>
      <form onSubmit={submit} class="card">
        {mode === 'signup' ? (
          <>
            <Field
              label={t('Your business')}
              name="organizationName"
              problem={problemOf(error, 'organizationName')}
            >
              <input
                {...describedBy('organizationName', { problem: problemOf(error, 'organizationName') })}
                required
                minLength={2}
                autocomplete="organization"
              />
            </Field>
            <Field label={t('Your name')} name="name" problem={problemOf(error, 'name')}>
              <input
                {...describedBy('name', { problem: problemOf(error, 'name') })}
                required
                autocomplete="name"
              />
            </Field>
          </>
        ) : null}
        <Field label={t('Email')} name="email" problem={problemOf(error, 'email')}>
          <input
            {...describedBy('email', { problem: problemOf(error, 'email') })}
            type="email"
            required
            autocomplete="email"
          />
        </Field>
        <Field label={t('Password')} name="password" problem={problemOf(error, 'password')}>
          <input
            {...describedBy('password', { problem: problemOf(error, 'password') })}
            type="password"
            required
            autocomplete={mode === 'signup' ? 'new-password' : 'current-password'}
          />
        </Field>
        <ErrorLine error={error} />
        <button type="submit" class="primary" disabled={busy}>
          {mode === 'signup' ? t('Create account') : t('Sign in')}
        </button>
      </form>
    </main>
  )
}
