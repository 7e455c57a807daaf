import { decodeTime, isValid } from 'ulid'
import { describe, expect, it } from 'vitest'
import { monotonicUlids, newUlid } from './ids.ts'

describe('ids from the pooled random source', () => {
  it('are ULIDs of the time now, all different across several refills of the pool', () => {
    const before = Date.now()
    const ids = Array.from({ length: 2000 }, () => newUlid())
    expect(ids.every((id) => isValid(id))).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
    expect(decodeTime(ids[0] as string)).toBeGreaterThanOrEqual(before)
    expect(decodeTime(ids.at(-1) as string)).toBeLessThanOrEqual(Date.now())
    // 80 random bits are 16 characters of 32: every character of the alphabet turns up in them.
    expect(new Set(ids.flatMap((id) => [...id.slice(10)])).size).toBe(32)
  })

  it('sort in the order they were made from a monotonic source, within one millisecond too', () => {
    const next = monotonicUlids()
    const ids = Array.from({ length: 1000 }, () => next())
    expect([...ids].sort()).toEqual(ids)
    expect(new Set(ids).size).toBe(ids.length)
  })
})
