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
