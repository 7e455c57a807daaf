import { describe, expect, it } from 'vitest'
import { retryDelayMs } from './backoff.ts'

describe('retry back-off', () => {
  it('grows fourfold from the base and stops at an hour', () => {
    expect([1, 2, 3].map((attemptsMade) => retryDelayMs({ attemptsMade, baseMs: 1000 }))).toEqual([
      1000, 4000, 16000,
    ])
    expect(retryDelayMs({ attemptsMade: 9, baseMs: 60_000 })).toBe(3_600_000)
  })
})
