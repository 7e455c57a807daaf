/**
 * The value at percentile `p` (0-100) of `values` by nearest rank: the smallest value that at
 * least p % of them do not exceed (rank ⌈p/100 · n⌉), so p99 of 100 values is the 99th, not the
 * largest; 0 for none.
 */
export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length))
  return sorted[Math.min(sorted.length, rank) - 1] ?? 0
}
