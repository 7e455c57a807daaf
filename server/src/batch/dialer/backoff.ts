const GROWTH = 4
const MAX_DELAY_MS = 60 * 60 * 1000

/**
 * How long a contact waits before its next attempt after `attemptsMade` unanswered ones: base,
 * 4×, 16×, … capped at an hour. A busy line or an unanswered phone is rarely free seconds later;
 * spreading retries over minutes reaches more people than hammering the number.
 */
export const retryDelayMs = ({ attemptsMade, baseMs }: { attemptsMade: number; baseMs: number }) =>
  Math.min(baseMs * GROWTH ** Math.max(0, attemptsMade - 1), Math.max(baseMs, MAX_DELAY_MS))

/** When a contact whose attempt `attemptNumber` went unanswered is dialled again; null: never (no attempts left). */
export const nextAttemptAt = ({
  attemptNumber,
  maxAttempts,
  now,
  baseMs,
}: {
  attemptNumber: number
  maxAttempts: number
  now: Date
  baseMs: number
}) =>
  attemptNumber < maxAttempts
    ? new Date(now.getTime() + retryDelayMs({ attemptsMade: attemptNumber, baseMs }))
    : null
