import { setImmediate } from 'node:timers/promises'
import { type BatchContactInput, type BatchSkippedRow, batchLimits } from '@parley/shared'
import { monotonicUlids } from '../crypto/ids.ts'
import { AppError } from '../http/app-error.ts'
import { checkE164, onlyZoneOfRegion } from '../phone-numbers/index.ts'
import type { CsvContact } from './create-csv.ts'
import { canonicalZone } from './create-schedule.ts'
import type { NewBatchContact } from './store.ts'

/** One monotonic source per process: 10,000 ids in a few milliseconds, unique and time-ordered. */
const nextId = monotonicUlids()

/**
 * A contact whose phone passed validation: `row` is where it was (BatchSkippedRow's numbering),
 * `fields` hold every other value as given.
 */
export type ValidContact = {
  row: number
  phone: string
  region: string | null
  name: string | null
  fields: Record<string, unknown>
}

export const tooManyContacts = (detail: string) =>
  AppError.badRequest(
    `${detail}; a job takes at most ${batchLimits.maxContacts} contacts`,
    'too_many_contacts',
  )

/**
 * CSV mode: rows with a bad phone are skipped and listed with why; the rest go on. A 10 MiB upload can
 * hold 800,000 rows and each check costs tens of microseconds, so a repeated phone is checked
 * once, and the list is refused as soon as it holds more unique valid phones than a job takes
 * instead of checking every row first.
 */
/** Phone checks between two yields to the event loop (a few milliseconds of work). */
const CHECKS_PER_TURN = 200

export const keepValidCsvRows = async (rows: CsvContact[]) => {
  const valid: ValidContact[] = []
  // Each phone seen so far: its region (null when none), undefined when the phone is invalid.
  const regionOf = new Map<string, string | null | undefined>()
  const invalid: BatchSkippedRow[] = []
  let uniqueValid = 0
  for (const [at, row] of rows.entries()) {
    // A phone check costs tens of microseconds: let other requests run every few hundred rows.
    if (at % CHECKS_PER_TURN === CHECKS_PER_TURN - 1) await setImmediate()
    if (!regionOf.has(row.phone)) {
      const region = checkE164(row.phone)?.region
      regionOf.set(row.phone, region)
      if (region !== undefined) uniqueValid += 1
      if (uniqueValid > batchLimits.maxContacts)
        throw tooManyContacts(
          `The file holds more than ${batchLimits.maxContacts} unique valid phone numbers`,
        )
    }
    const region = regionOf.get(row.phone)
    if (region !== undefined) valid.push({ ...row, region })
    else
      invalid.push({
        row: row.row,
        reason: row.phone === '' ? 'missing_phone' : 'invalid_phone',
        phone: row.phone,
        duplicateOfRow: null,
      })
  }
  return { valid, invalid }
}

/** JSON mode: one bad phone refuses the request, naming the first bad index. */
export const requireValidJsonContacts = (contacts: BatchContactInput[]): ValidContact[] =>
  contacts.map(({ phone, name, ...fields }, index) => {
    const checked = typeof phone === 'string' ? checkE164(phone) : null
    if (typeof phone !== 'string' || !checked)
      throw AppError.badRequest(
        `contacts[${index}].phone must be a valid E.164 number (leading +, digits only, e.g. +14155550123)`,
        'invalid_phone_format',
      )
    // A name that is not text is not lost: it stays among the fields, as given.
    const isTextName = typeof name === 'string'
    return {
      row: index + 1,
      phone,
      region: checked.region,
      name: isTextName && name.trim() !== '' ? name : null,
      fields: isTextName || name === undefined ? fields : { name, ...fields },
    }
  })

/** Keeps the first contact of each phone number, in the order given; lists the others. */
export const removeDuplicates = (contacts: ValidContact[]) => {
  const keptAt = new Map<string, number>()
  const duplicates: BatchSkippedRow[] = []
  const unique = contacts.filter((contact) => {
    const kept = keptAt.get(contact.phone)
    if (kept === undefined) {
      keptAt.set(contact.phone, contact.row)
      return true
    }
    duplicates.push({ row: contact.row, reason: 'duplicate', phone: contact.phone, duplicateOfRow: kept })
    return false
  })
  return { unique, duplicates }
}

/** A contact field named `timezone` (any case) holding an IANA zone. */
const timeZoneField = (fields: Record<string, unknown>) => {
  const key = Object.keys(fields).find((name) => name.toLowerCase() === 'timezone')
  const value = key === undefined ? undefined : fields[key]
  return typeof value === 'string' ? canonicalZone(value.trim()) : null
}

/**
 * Numbers the contacts in their order and fixes each one's own time zone now, so calling windows
 * do not depend on metadata that changes later: its `timezone` field when that is a valid IANA
 * zone, else the zone of the number's region when the region has only one, else null (the job's).
 */
export const toNewContacts = (contacts: ValidContact[]): NewBatchContact[] =>
  contacts.map((contact, position) => ({
    id: nextId(),
    position,
    phone: contact.phone,
    name: contact.name,
    fields: contact.fields,
    timeZone: timeZoneField(contact.fields) ?? (contact.region ? onlyZoneOfRegion(contact.region) : null),
  }))
