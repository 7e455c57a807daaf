import type { AgentListItem, PhoneNumber } from '@parley/shared'
import { useState } from 'preact/hooks'
import { t } from '../i18n.tsx'
import { describedBy, ErrorLine, Field, problemOf } from '../ui.tsx'
import { createPhoneNumber, updatePhoneNumber } from './client.ts'

/** A select of the organization's voice agents; "none" leaves the number without one. */
const AgentSelect = ({
  name,
  agents,
  value,
  onChange,
  problem,
}: {
  name: string
  agents: AgentListItem[]
  value?: string
  onChange?: (agentId: string) => void
  problem: string | undefined
}) => (
  <select
    {...describedBy(name, { problem })}
    {...(value === undefined ? {} : { value })}
    onChange={(event) => onChange?.(event.currentTarget.value)}
  >
    <option value="">{t('None yet')}</option>
    {agents.map((agent) => (
      <option value={agent.id}>
        {agent.name}
        {agent.active ? '' : ` (${t('inactive')})`}
      </option>
    ))}
  </select>
)

/** A new number: E.164, a label, the voice agent that calls from it, the SIP trunk it uses. */
export const AddPhoneNumber = ({
  agents,
  onAdded,
}: {
  agents: AgentListItem[]
  onAdded: () => Promise<void>
}) => {
  const [error, setError] = useState<unknown>(null)
  const [isBusy, setBusy] = useState(false)
  const submit = async (event: SubmitEvent) => {
    event.preventDefault()
    const formElement = event.currentTarget as HTMLFormElement
    const form = new FormData(formElement)
    const text = (field: string) => String(form.get(field) ?? '').trim()
    setError(null)
    setBusy(true)
    try {
      await createPhoneNumber({
        number: text('number'),
        label: text('label') || null,
        outboundAgentId: text('outboundAgentId') || null,
        sipTrunkId: text('sipTrunkId'),
      })
      formElement.reset()
      await onAdded()
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(false)
    }
  }
  const problem = (field: string) => problemOf(error, field)
  return (
    <form class="card" onSubmit={submit} aria-labelledby="add-number">
      <h2 id="add-number">{t('Add a phone number')}</h2>
      <Field
        label={t('Number')}
        name="number"
        hint={t('In international form: a + and digits only, like +14155550123')}
        problem={problem('number')}
      >
        <input
          {...describedBy('number', { problem: problem('number'), hint: true })}
          required
          dir="ltr"
          inputMode="tel"
          autoComplete="off"
          placeholder="+14155550123"
        />
      </Field>
      <Field label={t('Label')} name="label" problem={problem('label')}>
        <input {...describedBy('label', { problem: problem('label') })} maxLength={100} />
      </Field>
      <Field
        label={t('Agent that calls from it')}
        name="outboundAgentId"
        hint={t('Voice agents only; a campaign calls with the agent of its number')}
        problem={problem('outboundAgentId')}
      >
        <AgentSelect name="outboundAgentId" agents={agents} problem={problem('outboundAgentId')} />
      </Field>
      <Field
        label={t('SIP trunk id')}
        name="sipTrunkId"
        hint={t('The LiveKit outbound trunk the calls go through (ST_…)')}
        problem={problem('sipTrunkId')}
      >
        <input
          {...describedBy('sipTrunkId', { problem: problem('sipTrunkId'), hint: true })}
          required
          dir="ltr"
          autoComplete="off"
          placeholder="ST_…"
        />
      </Field>
      <ErrorLine error={error} />
      <div>
        <button type="submit" class="primary" disabled={isBusy}>
          {isBusy ? t('Adding…') : t('Add number')}
        </button>
      </div>
    </form>
  )
}

/** Changes what the API lets change without re-registering: the label and the agent. */
export const EditPhoneNumber = ({
  phoneNumber,
  agents,
  onDone,
}: {
  phoneNumber: PhoneNumber
  agents: AgentListItem[]
  onDone: (saved: boolean) => Promise<void> | void
}) => {
  const [label, setLabel] = useState(phoneNumber.label ?? '')
  const [agentId, setAgentId] = useState(phoneNumber.outboundAgentId ?? '')
  const [inboundAgentId, setInboundAgentId] = useState(phoneNumber.inboundAgentId ?? '')
  const [error, setError] = useState<unknown>(null)
  const submit = async (event: SubmitEvent) => {
    event.preventDefault()
    setError(null)
    try {
      await updatePhoneNumber(phoneNumber.id, {
        label: label.trim() || null,
        outboundAgentId: agentId || null,
        inboundAgentId: inboundAgentId || null,
      })
      await onDone(true)
    } catch (caught) {
      setError(caught)
    }
  }
  return (
    <form class="card" onSubmit={submit} aria-labelledby="edit-number">
      <h3 id="edit-number">{t('Change {number}', { number: phoneNumber.number })}</h3>
      <Field label={t('Label')} name="editLabel" problem={problemOf(error, 'label')}>
        <input
          {...describedBy('editLabel', { problem: problemOf(error, 'label') })}
          value={label}
          onInput={(event) => setLabel(event.currentTarget.value)}
          maxLength={100}
        />
      </Field>
      <Field
        label={t('Agent that calls from it')}
        name="editAgent"
        problem={problemOf(error, 'outboundAgentId')}
      >
        <AgentSelect
          name="editAgent"
          agents={agents}
          value={agentId}
          onChange={setAgentId}
          problem={problemOf(error, 'outboundAgentId')}
        />
      </Field>
      <Field
        label={t('Agent that answers calls to it')}
        name="editInboundAgent"
        problem={problemOf(error, 'inboundAgentId')}
      >
        <AgentSelect
          name="editInboundAgent"
          agents={agents}
          value={inboundAgentId}
          onChange={setInboundAgentId}
          problem={problemOf(error, 'inboundAgentId')}
        />
      </Field>
      <ErrorLine error={error} />
      <div class="row">
        <button type="submit" class="primary">
          {t('Save')}
        </button>
        <button type="button" onClick={() => onDone(false)}>
          {t('Cancel')}
        </button>
      </div>
    </form>
  )
}
