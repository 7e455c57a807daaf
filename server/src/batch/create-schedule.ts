import { DateTime, IANAZone } from 'luxon'
import { AppError } from '../http/app-error.ts'

/** The canonical spelling of an IANA zone (america/new_york → America/New_York), or null. */
export const canonicalZone = (zone: string): string | null => {
  if (zone === '' || !IANAZone.isValidZone(zone)) return null
  return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone
}

export const requireTimezone = (zone: string) => {
  const canonical = canonicalZone(zone)
  if (!canonical)
    throw AppError.badRequest(
      `timezone "${zone}" is not an IANA time zone (e.g. America/New_York, Europe/London, UTC)`,
      'invalid_timezone',
    )
  return canonical
}

/**
 * The scheduled start as an instant. A time with an offset (Z, +05:00) means that instant; one
 * without is wall-clock time in `timezone`, so "2030-03-01T09:00" with America/New_York is 14:00
 * UTC. A start in the past is refused; null means "start now".
 */
export const resolveScheduledStart = ({
  text,
  timezone,
  now,
}: {
  text: string | null | undefined
  timezone: string
  now: Date
}) => {
  if (text === null || text === undefined) return null
  const start = DateTime.fromISO(text, { zone: timezone })
  if (!start.isValid)
    throw AppError.badRequest('scheduledStartTime must be an ISO 8601 date and time, e.g. 2030-03-01T09:00')
  if (start.toMillis() < now.getTime())
    throw AppError.badRequest(
      `scheduledStartTime ${start.toUTC().toISO()} is in the past`,
      'past_scheduled_time',
    )
  return start.toJSDate()
}
