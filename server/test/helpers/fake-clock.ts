import type { Clock } from '../../src/clock.ts'

export type FakeClock = Clock & {
  set: (when: Date | string) => void
  advance: (ms: number) => void
}

/** A clock that stands still until the test moves it: scheduling and windows without sleeps. */
export const createFakeClock = (start: Date | string): FakeClock => {
  let current = new Date(start).getTime()
  return {
    now: () => new Date(current),
    set: (when) => {
      current = new Date(when).getTime()
    },
    advance: (ms) => {
      current += ms
    },
  }
}
