import type { TransferDestination } from '@parley/shared'
import { t } from '../i18n.tsx'
import type { DraftProps } from './settings-tools.tsx'

/** The most destinations an agent may have (the API's limit). */
const MAX_DESTINATIONS = 10

/** The draft keeps the list as JSON text, so an unchanged list compares equal to the saved one. */
export const destinationsOf = (text: string): TransferDestination[] => {
  try {
    const parsed = JSON.parse(text) as unknown
    return Array.isArray(parsed) ? (parsed as TransferDestination[]) : []
  } catch {
    return []
  }
}

const blank: TransferDestination = { name: '', destination: '', whenToUse: '', mode: 'cold' }

/**
 * People a voice agent may transfer the call to (its transfer_call function): a name the agent
 * uses, a phone number or SIP address, when to transfer there, and cold (put through at once) or
 * warm (the agent briefs the person first). At most 10.
 */
export const TransfersFieldset = ({ draft, set, problem }: DraftProps) => {
  const list = destinationsOf(draft.transferDestinations)
  const save = (next: TransferDestination[]) => set({ transferDestinations: JSON.stringify(next) })
  const change = (index: number, changes: Partial<TransferDestination>) =>
    save(list.map((item, at) => (at === index ? { ...item, ...changes } : item)))
  const issue = problem('transferDestinations')
  return (
    <fieldset aria-describedby={issue ? 'transferDestinations-problem' : 'transferDestinations-hint'}>
      <legend>{t('Transfer to a person')}</legend>
      <small class="muted" id="transferDestinations-hint">
        {t(
          'People the agent may put a caller through to, with a phone number (+14155550123) or a SIP address (sip:desk@pbx.example.com). Transfers dial out on your organization’s phone number.',
        )}
      </small>
      {list.map((item, index) => (
        <fieldset class="transfer-destination">
          <legend>{item.name || t('New destination')}</legend>
          <div class="field">
            <label for={`transfer-${index}-name`}>{t('Name')}</label>
            <input
              id={`transfer-${index}-name`}
              value={item.name}
              maxLength={40}
              aria-invalid={issue ? true : undefined}
              onInput={(event) => change(index, { name: event.currentTarget.value })}
            />
          </div>
          <div class="field">
            <label for={`transfer-${index}-destination`}>{t('Phone number or SIP address')}</label>
            <input
              id={`transfer-${index}-destination`}
              value={item.destination}
              inputMode="tel"
              aria-invalid={issue ? true : undefined}
              onInput={(event) => change(index, { destination: event.currentTarget.value })}
            />
          </div>
          <div class="field">
            <label for={`transfer-${index}-when`}>{t('When to transfer here')}</label>
            <input
              id={`transfer-${index}-when`}
              value={item.whenToUse}
              maxLength={500}
              aria-invalid={issue ? true : undefined}
              onInput={(event) => change(index, { whenToUse: event.currentTarget.value })}
            />
          </div>
          <div class="field">
            <label for={`transfer-${index}-mode`}>{t('How')}</label>
            <select
              id={`transfer-${index}-mode`}
              value={item.mode}
              onChange={(event) =>
                change(index, { mode: event.currentTarget.value as TransferDestination['mode'] })
              }
            >
              <option value="cold">{t('Cold: put the caller through at once')}</option>
              <option value="warm">{t('Warm: brief the person first, then join them')}</option>
            </select>
          </div>
          <div>
            <button type="button" class="small" onClick={() => save(list.filter((_, at) => at !== index))}>
              {t('Remove')}
            </button>
          </div>
        </fieldset>
      ))}
      {issue ? (
        <small class="error" id="transferDestinations-problem">
          {issue}
        </small>
      ) : null}
      <div>
        <button
          type="button"
          class="small"
          disabled={list.length >= MAX_DESTINATIONS}
          onClick={() => save([...list, { ...blank }])}
        >
          {t('Add a destination')}
        </button>
      </div>
    </fieldset>
  )
}
