import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodeCursor, encodeCursor } from './cursor.ts'

const crafted = (createdAt: unknown, id: unknown = '01JD4MC3N0000000000000000') =>
  Buffer.from(JSON.stringify([createdAt, id])).toString('base64url')

describe('decodeCursor', () => {
  it('reads back what encodeCursor wrote', () => {
    const cursor = { createdAt: '2026-11-24T09:30:00.123456Z', id: '01JD4MC3N0000000000000000' }
    expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor)
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('0001-01-01T00:00:00Z'),
          max: new Date('9999-12-31T23:59:59Z'),
          noInvalidDate: true,
        }),
        fc.stringMatching(/^[0-9A-Z]{26}$/),
        (date, id) => {
          const createdAt = date.toISOString()
          expect(decodeCursor(encodeCursor({ createdAt, id }))).toEqual({ createdAt, id })
        },
      ),
      { numRuns: 200 },
    )
  })

  it.each([
    ['30 February', crafted('2026-02-30T00:00:00Z')],
    ['29 February of a common year', crafted('2025-02-29T00:00:00Z')],
    ['year 0000', crafted('0000-01-01T00:00:00Z')],
    ['hour 24', crafted('2026-01-01T24:00:00Z')],
    ['second 60', crafted('2026-01-01T23:59:60Z')],
    ['offset +23:59', crafted('2026-01-01T00:00:00+23:59')],
    ['offset +15:00', crafted('2026-01-01T00:00:00+15:00')],
    ['offset minutes 60', crafted('2026-01-01T00:00:00+01:60')],
    ['seven fraction digits', crafted('2026-01-01T00:00:00.1234567Z')],
    ['no zone', crafted('2026-01-01T00:00:00')],
    ['an id with NUL', crafted('2026-01-01T00:00:00Z', 'a\u0000b')],
    ['an id with a lone surrogate', crafted('2026-01-01T00:00:00Z', '\ud800')],
    ['an empty id', crafted('2026-01-01T00:00:00Z', '')],
    ['a number for an id', crafted('2026-01-01T00:00:00Z', 7)],
    ['a third element', Buffer.from('["2026-01-01T00:00:00Z","a","b"]').toString('base64url')],
    ['an object', Buffer.from('{"0":"2026-01-01T00:00:00Z","1":"a"}').toString('base64url')],
    ['not base64 JSON', 'not-a-cursor'],
  ])('refuses %s with a 400 naming cursor', (_, cursor) => {
    expect(() => decodeCursor(cursor)).toThrow(
      expect.objectContaining({ status: 400, message: expect.stringMatching(/^cursor: /) }),
    )
  })

  it('accepts the offsets real zones have and leap days that exist', () => {
    for (const createdAt of [
      '2024-02-29T00:00:00Z',
      '2026-01-01T00:00:00+14:00',
      '2026-01-01T00:00:00-12:00',
      '0001-01-01T00:00:00+01:00',
      '9999-12-31T23:59:59.999999-14:00',
    ])
      expect(decodeCursor(crafted(createdAt)).createdAt).toBe(createdAt)
  })
})
