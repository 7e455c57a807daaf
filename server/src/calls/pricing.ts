/**
 * Voice prices, the one place they live (DESIGN.md §4 "Billing"): per minute by architecture.
 * The batch estimate uses the same prices over an assumed 2-minute call, which gives the spec's
 * stated 0.035 (pipeline) and 0.07 (realtime) USD per call.
 */
export type VoiceArchitecture = 'pipeline' | 'realtime'

export const VOICE_MICROS_PER_MINUTE: Readonly<Record<VoiceArchitecture, number>> = {
  pipeline: 17_500,
  realtime: 35_000,
}

export const ESTIMATED_CALL_MINUTES = 2

/**
 * Micro-USD for a call of this length: prorated by the second and rounded up, so many short
 * calls never add up to free usage.
 */
export const priceCall = (architecture: VoiceArchitecture, durationSeconds: number) =>
  Math.ceil((Math.max(0, durationSeconds) * VOICE_MICROS_PER_MINUTE[architecture]) / 60)

/** Micro-USD a batch should expect to spend per contact (2-minute calls). */
export const estimateCallMicros = (architecture: VoiceArchitecture) =>
  VOICE_MICROS_PER_MINUTE[architecture] * ESTIMATED_CALL_MINUTES

/** Whole seconds from `from` to `to`, rounded up; none when `to` is not later. */
const secondsBetween = (from: Date, to: Date) =>
  Math.max(0, Math.ceil((to.getTime() - from.getTime()) / 1000))

/**
 * Micro-USD a call has cost up to `at`: its finished billed intervals plus the one running, priced
 * at the architecture of the agent live in it. A call bills only while the person and the agent
 * are both in its room (DESIGN.md §7), so nothing else counts.
 */
export const costUpTo = (
  call: { accruedMicros: number; billingSince: Date | null; architecture: VoiceArchitecture },
  at: Date,
) =>
  call.accruedMicros +
  (call.billingSince ? priceCall(call.architecture, secondsBetween(call.billingSince, at)) : 0)
