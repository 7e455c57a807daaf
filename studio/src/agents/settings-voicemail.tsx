import type { VoicemailSetting } from '@parley/shared'
import { t } from '../i18n.tsx'
import { defaultVoicemail } from './settings-draft.ts'
import type { DraftProps } from './settings-tools.tsx'

/** The API's limit on the message's length. */
const MAX_MESSAGE = 1000

/** The draft keeps the setting as JSON text, so an unchanged one compares equal to the saved one. */
export const voicemailOf = (text: string): VoicemailSetting => {
  try {
    const parsed = JSON.parse(text) as Partial<VoicemailSetting> | null
    return parsed && typeof parsed === 'object' ? { ...defaultVoicemail, ...parsed } : defaultVoicemail
  } catch {
    return defaultVoicemail
  }
}

/**
 * What an outbound call does when a machine answers (the worker's answering-machine detection):
 * on a voicemail box, hang up or leave a message (which may use {{field}} placeholders); on a
 * phone menu, get through it with the keypad or hang up.
 */
export const VoicemailFieldset = ({ draft, set, problem }: DraftProps) => {
  const setting = voicemailOf(draft.voicemail)
  const change = (changes: Partial<VoicemailSetting>) =>
    set({ voicemail: JSON.stringify({ ...setting, ...changes }) })
  const issue = problem('voicemail')
  return (
    <fieldset aria-describedby={issue ? 'voicemail-problem' : 'voicemail-hint'}>
      <legend>{t('Voicemail and phone menus')}</legend>
      <small class="muted" id="voicemail-hint">
        {t(
          'On outbound calls the agent first listens to who answered. A person: the conversation goes on. A voicemail box or a phone menu: this decides.',
        )}
      </small>
      <div class="field">
        <label for="voicemail-action">{t('On a voicemail box')}</label>
        <select
          id="voicemail-action"
          value={setting.action}
          onChange={(event) => change({ action: event.currentTarget.value as VoicemailSetting['action'] })}
        >
          <option value="hang_up">{t('Hang up')}</option>
          <option value="leave_message">{t('Leave a message after the greeting, then hang up')}</option>
        </select>
      </div>
      {setting.action === 'leave_message' ? (
        <div class="field">
          <label for="voicemail-message">{t('Message')}</label>
          <textarea
            id="voicemail-message"
            rows={3}
            maxLength={MAX_MESSAGE}
            value={setting.message ?? ''}
            aria-invalid={issue ? true : undefined}
            aria-describedby="voicemail-message-hint"
            onInput={(event) => change({ message: event.currentTarget.value })}
          />
          <small class="muted" id="voicemail-message-hint">
            {t('May use {{field}} placeholders, filled from the contact like the prompt’s.')}
          </small>
        </div>
      ) : null}
      <div class="field">
        <label for="voicemail-menu">{t('On a phone menu')}</label>
        <select
          id="voicemail-menu"
          value={setting.onPhoneMenu}
          onChange={(event) =>
            change({ onPhoneMenu: event.currentTarget.value as VoicemailSetting['onPhoneMenu'] })
          }
        >
          <option value="navigate">{t('Get through it with the keypad')}</option>
          <option value="hang_up">{t('Hang up')}</option>
        </select>
      </div>
      {issue ? (
        <small class="error" id="voicemail-problem">
          {issue}
        </small>
      ) : null}
    </fieldset>
  )
}
