import { type CallingWindow, type Weekday, weekdays } from '@parley/shared'
import { DateTime } from 'luxon'

const DAYS_SCANNED = 8

const minutesOf = (hhmm: string) => {
  const [hours = 0, minutes = 0] = hhmm.split(':').map(Number)
  return hours * 60 + minutes
}

const dayOf = (local: DateTime): Weekday => weekdays[local.weekday - 1] as Weekday

/**
 * Whether `now` falls inside the window in `zone`. Wall-clock minutes are compared, so the window
 * keeps its local hours across DST changes (09:00–17:00 stays 09:00–17:00 local on both sides).
 * A window past midnight belongs to the day it opens: fri 22:00–02:00 covers Saturday 01:00.
 */
export const isInsideWindow = (window: CallingWindow, zone: string, now: Date) => {
  const local = DateTime.fromJSDate(now, { zone })
  const minute = local.hour * 60 + local.minute
  const start = minutesOf(window.start)
  const end = minutesOf(window.end)
  const isDay = (day: DateTime) => window.days.includes(dayOf(day))
  if (start === end) return isDay(local)
  if (start < end) return isDay(local) && minute >= start && minute < end
  return (isDay(local) && minute >= start) || (isDay(local.minus({ days: 1 })) && minute < end)
}

/**
 * The first instant at or after `now` when the window is open in `zone`, or null when it never
 * opens (no days). A start time that does not exist on a spring-forward day (02:30 in a zone that
 * jumps from 02:00 to 03:00) opens at the first local time after the gap, as luxon shifts it.
 */
export const nextWindowOpening = (window: CallingWindow, zone: string, now: Date): Date | null => {
  if (isInsideWindow(window, zone, now)) return now
  const local = DateTime.fromJSDate(now, { zone })
  const start = minutesOf(window.start)
  for (let offset = 0; offset < DAYS_SCANNED; offset++) {
    const day = local.startOf('day').plus({ days: offset })
    if (!window.days.includes(dayOf(day))) continue
    const opening = DateTime.fromObject(
      { year: day.year, month: day.month, day: day.day, hour: Math.floor(start / 60), minute: start % 60 },
      { zone },
    )
    if (opening.toMillis() > now.getTime()) return opening.toJSDate()
  }
  return null
}
