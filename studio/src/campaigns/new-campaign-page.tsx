import type { AgentListItem, BatchPreview, PhoneNumber } from '@parley/shared'
import { useEffect, useState } from 'preact/hooks'
import { ApiError } from '../api.ts'
import { t } from '../i18n.tsx'
import { linkProps, navigate } from '../router.ts'
import { describedBy, ErrorLine, Field, Loading, problemOf } from '../ui.tsx'
import { CampaignPreview } from './campaign-preview.tsx'
import { createCampaign, listPhoneNumbers, listVoiceAgents, previewCampaign } from './client.ts'
import { RetryPolicyFields, retryPolicyOf } from './retry-policy.tsx'
import { dayName, weekdays } from './words.ts'

/** The field an error of the batch routes is about, by its code (their errors name no field). */
const fieldOfCode: Record<string, string> = {
  invalid_csv: 'file',
  missing_phone_column: 'file',
  no_valid_contacts: 'file',
  too_many_contacts: 'file',
  csv_too_many_columns: 'file',
  csv_header_too_large: 'file',
  csv_row_too_large: 'file',
  csv_field_too_large: 'file',
  payload_too_large: 'file',
  invalid_timezone: 'timezone',
  past_scheduled_time: 'scheduledStartTime',
  no_outbound_agent: 'fromPhoneNumberId',
  agent_inactive: 'agent',
  not_found: 'fromPhoneNumberId',
}

const problemFor = (error: unknown, field: string) =>
  problemOf(error, field) ??
  (error instanceof ApiError && fieldOfCode[error.code ?? ''] === field ? error.message : undefined)

/** Whether the error is shown under a field (then not again at the buttons). */
const isFieldError = (error: unknown) =>
  error instanceof ApiError &&
  (Object.keys(error.fields).length > 0 || Boolean(fieldOfCode[error.code ?? '']))

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone

/** The fields /batch/preview and /batch/create take, from the form (text first, the file last). */
const requestOf = (
  formElement: HTMLFormElement,
  { startsLater, hasHours }: { startsLater: boolean; hasHours: boolean },
) => {
  const entered = new FormData(formElement)
  const request = new FormData()
  const fields = ['name', 'fromPhoneNumberId', 'concurrentCallLimit', 'maxAttempts']
  if (startsLater) fields.push('scheduledStartTime', 'timezone')
  for (const field of fields) request.append(field, String(entered.get(field) ?? ''))
  if (hasHours)
    request.append(
      'callingWindow',
      JSON.stringify({
        start: String(entered.get('windowStart') ?? ''),
        end: String(entered.get('windowEnd') ?? ''),
        days: entered.getAll('windowDays').map(String),
      }),
    )
  request.append('retryPolicy', JSON.stringify(retryPolicyOf(entered)))
  const file = entered.get('file')
  if (file instanceof File) request.append('file', file, file.name)
  return request
}

/**
 * A new campaign: the voice agent and the number it calls from, the CSV, when to start, the
 * retries by outcome; then the
 * preview (the server reads the file exactly as create will), then create, then the job's page.
 * Any change after a preview asks for a new one, so what is created is what was previewed.
 */
export const NewCampaignPage = () => {
  const [agents, setAgents] = useState<AgentListItem[] | null>(null)
  const [numbers, setNumbers] = useState<PhoneNumber[]>([])
  const [agentId, setAgentId] = useState('')
  const [startsLater, setStartsLater] = useState(false)
  const [hasHours, setHasHours] = useState(false)
  const [preview, setPreview] = useState<{ data: BatchPreview; form: FormData } | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState<'preview' | 'create' | null>(null)
  useEffect(() => {
    Promise.all([listVoiceAgents(), listPhoneNumbers(1, 100)]).then(([voiceAgents, page]) => {
      setAgents(voiceAgents)
      setNumbers(page.data)
      setAgentId(
        voiceAgents.find((agent) => page.data.some((number) => number.outboundAgentId === agent.id))?.id ??
          voiceAgents[0]?.id ??
          '',
      )
    }, setError)
  }, [])
  if (agents === null) return error ? <ErrorLine error={error} /> : <Loading />

  const agentNumbers = numbers.filter((number) => number.outboundAgentId === agentId)
  const changed = () => {
    setPreview(null)
    setError(null)
  }
  const showPreview = async (event: SubmitEvent) => {
    event.preventDefault()
    const form = requestOf(event.currentTarget as HTMLFormElement, { startsLater, hasHours })
    setError(null)
    setBusy('preview')
    try {
      setPreview({ data: await previewCampaign(form), form })
    } catch (caught) {
      setError(caught)
    } finally {
      setBusy(null)
    }
  }
  const create = async () => {
    if (!preview) return
    setError(null)
    setBusy('create')
    try {
      const created = await createCampaign(preview.form)
      navigate(`/campaigns/${created.batchJobId}`)
    } catch (caught) {
      setError(caught)
      setBusy(null)
    }
  }
  const problem = (field: string) => problemFor(error, field)
  return (
    <section aria-labelledby="new-campaign-title">
      <p>
        <a class="back" {...linkProps('/campaigns')}>
          {t('Campaigns')}
        </a>
      </p>
      <h1 id="new-campaign-title">{t('New campaign')}</h1>
      <form class="card" onSubmit={showPreview} onInput={changed} aria-labelledby="new-campaign-title">
        <Field label={t('Name')} name="name" problem={problem('name')}>
          <input {...describedBy('name', { problem: problem('name') })} required maxLength={200} />
        </Field>
        <Field label={t('Agent')} name="agent" hint={t('Voice agents only')} problem={problem('agent')}>
          <select
            {...describedBy('agent', { problem: problem('agent'), hint: true })}
            value={agentId}
            onChange={(event) => setAgentId(event.currentTarget.value)}
          >
            {agents.map((agent) => (
              <option value={agent.id}>
                {agent.name}
                {agent.active ? '' : ` (${t('inactive')})`}
              </option>
            ))}
          </select>
        </Field>
        {agents.length === 0 ? (
          <p class="notice">
            {t('Campaigns call with a voice agent.')} <a {...linkProps('/agents')}>{t('Create one')}</a>
          </p>
        ) : null}
        <Field label={t('Call from')} name="fromPhoneNumberId" problem={problem('fromPhoneNumberId')}>
          <select {...describedBy('fromPhoneNumberId', { problem: problem('fromPhoneNumberId') })} required>
            {agentNumbers.map((number) => (
              <option value={number.id}>
                {number.number}
                {number.label ? ` · ${number.label}` : ''}
              </option>
            ))}
          </select>
        </Field>
        {agentId && agentNumbers.length === 0 ? (
          <p class="notice">
            {t('None of your numbers calls with this agent.')}{' '}
            <a {...linkProps('/campaigns/phone-numbers')}>{t('Choose it for a number')}</a>
          </p>
        ) : null}
        <Field
          label={t('Contacts (CSV file)')}
          name="file"
          hint={t('A header row with a phone column; a name column and any others are kept for the agent')}
          problem={problem('file')}
        >
          <input
            {...describedBy('file', { problem: problem('file'), hint: true })}
            type="file"
            accept=".csv,text/csv"
            required
          />
        </Field>
        <StartFields startsLater={startsLater} onStartsLater={setStartsLater} problem={problem} />
        <HoursFields hasHours={hasHours} onHasHours={setHasHours} problem={problem} />
        <Field
          label={t('Calls at a time')}
          name="concurrentCallLimit"
          problem={problem('concurrentCallLimit')}
        >
          <input
            {...describedBy('concurrentCallLimit', { problem: problem('concurrentCallLimit') })}
            type="number"
            min={1}
            max={50}
            defaultValue="5"
          />
        </Field>
        <Field label={t('Tries per contact')} name="maxAttempts" problem={problem('maxAttempts')}>
          <input
            {...describedBy('maxAttempts', { problem: problem('maxAttempts') })}
            type="number"
            min={1}
            max={10}
            defaultValue="3"
          />
        </Field>
        <RetryPolicyFields problem={problem('retryPolicy')} />
        {isFieldError(error) ? null : <ErrorLine error={error} />}
        <div class="row">
          <button type="submit" class="primary" disabled={busy !== null}>
            {busy === 'preview' ? t('Reading the file…') : t('Preview')}
          </button>
        </div>
      </form>
      {preview ? (
        <>
          <CampaignPreview preview={preview.data} />
          {isFieldError(error) ? <ErrorLine error={error} /> : null}
          <div class="row">
            <button
              type="button"
              class="primary"
              disabled={busy !== null || !preview.data.estimate.hasEnoughCredits}
              onClick={create}
            >
              {busy === 'create' ? t('Creating…') : t('Create campaign')}
            </button>
          </div>
        </>
      ) : null}
    </section>
  )
}

/** Now, or at a wall-clock time in a time zone (the browser's, unless another is named). */
const StartFields = ({
  startsLater,
  onStartsLater,
  problem,
}: {
  startsLater: boolean
  onStartsLater: (later: boolean) => void
  problem: (field: string) => string | undefined
}) => (
  <fieldset>
    <legend>{t('When to start')}</legend>
    <label class="choice">
      <input type="radio" name="start" checked={!startsLater} onChange={() => onStartsLater(false)} />
      <span>{t('As soon as it is created')}</span>
    </label>
    <label class="choice">
      <input type="radio" name="start" checked={startsLater} onChange={() => onStartsLater(true)} />
      <span>{t('At a time')}</span>
    </label>
    {startsLater ? (
      <>
        <Field label={t('Start at')} name="scheduledStartTime" problem={problem('scheduledStartTime')}>
          <input
            {...describedBy('scheduledStartTime', { problem: problem('scheduledStartTime') })}
            type="datetime-local"
            required
          />
        </Field>
        <Field
          label={t('Time zone')}
          name="timezone"
          hint={t('The start is read in this zone, like America/New_York or Asia/Karachi')}
          problem={problem('timezone')}
        >
          <input
            {...describedBy('timezone', { problem: problem('timezone'), hint: true })}
            defaultValue={browserZone()}
            dir="ltr"
            required
            autoComplete="off"
          />
        </Field>
      </>
    ) : null}
  </fieldset>
)

/** Calling hours: any time, or only between two times on the days ticked (the API's callingWindow). */
const HoursFields = ({
  hasHours,
  onHasHours,
  problem,
}: {
  hasHours: boolean
  onHasHours: (hours: boolean) => void
  problem: (field: string) => string | undefined
}) => (
  <fieldset>
    <legend>{t('When to call')}</legend>
    <label class="choice">
      <input type="radio" name="hours" checked={!hasHours} onChange={() => onHasHours(false)} />
      <span>{t('At any hour')}</span>
    </label>
    <label class="choice">
      <input type="radio" name="hours" checked={hasHours} onChange={() => onHasHours(true)} />
      <span>{t('Only in calling hours, in each contact’s own time zone')}</span>
    </label>
    {hasHours ? (
      <>
        <div class="row">
          <Field label={t('From')} name="windowStart">
            <input {...describedBy('windowStart', {})} type="time" defaultValue="09:00" required />
          </Field>
          <Field label={t('Until')} name="windowEnd">
            <input {...describedBy('windowEnd', {})} type="time" defaultValue="18:00" required />
          </Field>
        </div>
        <fieldset>
          <legend>{t('On')}</legend>
          <div class="row">
            {weekdays.map((day) => (
              <label class="choice">
                <input
                  type="checkbox"
                  name="windowDays"
                  value={day}
                  defaultChecked={day !== 'sat' && day !== 'sun'}
                />
                <span>{dayName(day)}</span>
              </label>
            ))}
          </div>
        </fieldset>
        {problem('callingWindow') ? (
          <small class="error" id="callingWindow-problem">
            {problem('callingWindow')}
          </small>
        ) : null}
      </>
    ) : null}
  </fieldset>
)
