import { describe, expect, it } from 'vitest'
import { estimateCostMicros, estimateDuration, formatUsd } from './estimate.ts'

describe('batch estimates', () => {
  it('prices 2-minute calls by architecture', () => {
    expect(formatUsd(estimateCostMicros(1000, 'pipeline'))).toBe('35.00')
    expect(formatUsd(estimateCostMicros(3, 'realtime'))).toBe('0.21')
    expect(formatUsd(estimateCostMicros(1, 'pipeline'))).toBe('0.04')
  })

  it('counts rounds of concurrent 2-minute calls in friendly units', () => {
    expect(estimateDuration(100, 5)).toBe('about 40 minutes')
    expect(estimateDuration(1, 5)).toBe('about 2 minutes')
    expect(estimateDuration(150, 5)).toBe('about 1 hour')
    expect(estimateDuration(10_000, 50)).toBe('about 6.5 hours')
    expect(estimateDuration(10_000, 1)).toBe('about 14 days')
  })
})
