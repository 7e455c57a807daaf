import type { AgentRow } from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import { providersWithKeys } from '../orgs/index.ts'
import { voiceMicrosPerMinute } from '../providers/voice-prices.ts'

export {
  PLATFORM_FEE_MICROS_PER_MINUTE,
  VOICE_LLM_TOKENS_PER_MINUTE,
  voiceMicrosPerMinute,
} from '../providers/voice-prices.ts'

/**
 * Voice prices, the one place they live (README "Voice pricing"). A call is billed per second at
 * its agent's price per minute: the sum of its parts' catalogue prices (STT + LLM + TTS for a
 * pipeline agent, the realtime model for a realtime one), where a part served by the
 * organization's own provider key costs only the platform fee instead of its price.
 */
export type VoiceArchitecture = 'pipeline' | 'realtime'

/**
 * The flat prices per minute by architecture: what a call opened before per-model prices is billed
 * at (its row has no price of its own), and the built-in default agents' prices (Deepgram Nova 3 +
 * GPT-4o mini + Cartesia Sonic 2; OpenAI Realtime).
 */
export const VOICE_MICROS_PER_MINUTE: Readonly<Record<VoiceArchitecture, number>> = {
  pipeline: 17_500,
  realtime: 35_000,
}

export const ESTIMATED_CALL_MINUTES = 2

/** voiceMicrosPerMinute for a call of the agent paid by this organization (its own keys read). */
export const voiceRateFor = async (
  ctx: AppContext,
  {
    agent,
    organizationId,
  }: {
    agent: Pick<AgentRow, 'agentArchitecture' | 'model' | 'stt' | 'tts' | 'realtimeProvider'>
    organizationId: string
  },
) => voiceMicrosPerMinute(ctx, { agent, ownProviders: await providersWithKeys(ctx, organizationId) })

/** A call's price per minute: its own, or its architecture's flat one for a call opened before. */
const rateOf = (price: VoiceArchitecture | number) =>
  typeof price === 'number' ? price : VOICE_MICROS_PER_MINUTE[price]

/**
 * Micro-USD for a call of this length at this price per minute (or an architecture's flat price):
 * prorated by the second and rounded up, so many short calls never add up to free usage.
 */
export const priceCall = (price: VoiceArchitecture | number, durationSeconds: number) =>
  Math.ceil((Math.max(0, durationSeconds) * rateOf(price)) / 60)

/** Micro-USD a call should expect to spend (2 minutes), held before it starts. */
export const estimateCallMicros = (price: VoiceArchitecture | number) =>
  rateOf(price) * ESTIMATED_CALL_MINUTES

/** Whole seconds from `from` to `to`, rounded up; none when `to` is not later. */
const secondsBetween = (from: Date, to: Date) =>
  Math.max(0, Math.ceil((to.getTime() - from.getTime()) / 1000))

/**
 * Micro-USD a call has cost up to `at`: its finished billed intervals plus the one running, priced
 * at the price of the agent live in it (its architecture's flat price for a call opened before
 * per-model prices). A call bills only while the person and the agent are both in its room
 * (DESIGN.md §7), so nothing else counts.
 */
export const costUpTo = (
  call: {
    accruedMicros: number
    billingSince: Date | null
    architecture: VoiceArchitecture
    microsPerMinute: number | null
  },
  at: Date,
) =>
  call.accruedMicros +
  (call.billingSince
    ? priceCall(call.microsPerMinute ?? call.architecture, secondsBetween(call.billingSince, at))
    : 0)
