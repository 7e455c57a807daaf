import type { CallingWindow } from '@parley/shared'
import { describe, expect, it } from 'vitest'
import { isInsideWindow, nextWindowOpening } from './calling-window.ts'

const weekdaysNineToFive: CallingWindow = {
  start: '09:00',
  end: '17:00',
  days: ['mon', 'tue', 'wed', 'thu', 'fri'],
}
const at = (iso: string) => new Date(iso)

describe('calling windows', () => {
  it('is open on listed days between start and end, local time, end excluded', () => {
    // Wednesday 2026-06-10; New York is UTC-4 in summer.
    expect(isInsideWindow(weekdaysNineToFive, 'America/New_York', at('2026-06-10T13:00:00Z'))).toBe(true)
    expect(isInsideWindow(weekdaysNineToFive, 'America/New_York', at('2026-06-10T12:59:00Z'))).toBe(false)
    expect(isInsideWindow(weekdaysNineToFive, 'America/New_York', at('2026-06-10T21:00:00Z'))).toBe(false)
    // The same instant is inside in Karachi's afternoon (UTC+5), outside in New York's morning.
    expect(isInsideWindow(weekdaysNineToFive, 'Asia/Karachi', at('2026-06-10T10:00:00Z'))).toBe(true)
    expect(isInsideWindow(weekdaysNineToFive, 'America/New_York', at('2026-06-10T10:00:00Z'))).toBe(false)
    // Saturday.
    expect(isInsideWindow(weekdaysNineToFive, 'America/New_York', at('2026-06-13T15:00:00Z'))).toBe(false)
  })

  it('keeps local hours across both DST changes', () => {
    // New York springs forward on Sunday 2026-03-08 and falls back on Sunday 2026-11-01.
    const everyDay: CallingWindow = { ...weekdaysNineToFive, days: ['sun', 'mon'] }
    expect(nextWindowOpening(everyDay, 'America/New_York', at('2026-03-08T05:00:00Z'))).toEqual(
      at('2026-03-08T13:00:00Z'), // 09:00 EDT (UTC-4)
    )
    expect(nextWindowOpening(everyDay, 'America/New_York', at('2026-03-07T23:00:00Z'))).toEqual(
      at('2026-03-08T13:00:00Z'),
    )
    expect(nextWindowOpening(everyDay, 'America/New_York', at('2026-11-01T05:00:00Z'))).toEqual(
      at('2026-11-01T14:00:00Z'), // 09:00 EST (UTC-5)
    )
    expect(isInsideWindow(everyDay, 'America/New_York', at('2026-11-01T13:30:00Z'))).toBe(false)
    expect(isInsideWindow(everyDay, 'America/New_York', at('2026-11-01T14:00:00Z'))).toBe(true)
  })

  it('opens a start time that falls in the spring-forward gap just after the gap', () => {
    const early: CallingWindow = { start: '02:30', end: '05:00', days: ['sun'] }
    // 02:30 does not exist in New York on 2026-03-08; luxon moves it to 03:30 EDT = 07:30Z.
    expect(nextWindowOpening(early, 'America/New_York', at('2026-03-08T05:00:00Z'))).toEqual(
      at('2026-03-08T07:30:00Z'),
    )
  })

  it('runs a window past midnight into the next day', () => {
    const night: CallingWindow = { start: '22:00', end: '02:00', days: ['fri'] }
    expect(isInsideWindow(night, 'UTC', at('2026-06-12T23:00:00Z'))).toBe(true) // Friday
    expect(isInsideWindow(night, 'UTC', at('2026-06-13T01:00:00Z'))).toBe(true) // Saturday, from Friday
    expect(isInsideWindow(night, 'UTC', at('2026-06-13T23:00:00Z'))).toBe(false) // Saturday night
    expect(isInsideWindow(night, 'UTC', at('2026-06-12T01:00:00Z'))).toBe(false) // Friday, from Thursday
  })

  it('answers now when open, the next opening when closed, null when never', () => {
    const now = at('2026-06-10T13:00:00Z')
    expect(nextWindowOpening(weekdaysNineToFive, 'America/New_York', now)).toEqual(now)
    // Friday evening → Monday 09:00.
    expect(nextWindowOpening(weekdaysNineToFive, 'America/New_York', at('2026-06-12T22:00:00Z'))).toEqual(
      at('2026-06-15T13:00:00Z'),
    )
    expect(nextWindowOpening({ ...weekdaysNineToFive, days: [] }, 'UTC', now)).toBeNull()
  })
})
