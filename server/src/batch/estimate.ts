import type { AgentArchitecture } from '@parley/shared'
import { ESTIMATED_CALL_MINUTES, estimateCallMicros } from '../calls/index.ts'

/**
 * A call of about 2 minutes at the price per minute its calls are billed at (calls/pricing.ts):
 * the agent's own, or an architecture's flat one (the spec's 0.035 USD pipeline, 0.07 realtime).
 */
export const MINUTES_PER_CALL = ESTIMATED_CALL_MINUTES

export type VoiceArchitecture = Exclude<AgentArchitecture, 'text'>

/** Contacts times a call's expected cost at this price per minute (or an architecture's flat one). */
export const estimateCostMicros = (contacts: number, price: VoiceArchitecture | number) =>
  contacts * estimateCallMicros(price)

/** Micro-USD as a USD string with cents, the way the create response shows it ("35.00"). */
export const formatUsd = (micros: number) => (Math.round(micros / 10_000) / 100).toFixed(2)

const halves = (value: number) => Math.max(1, Math.round(value * 2) / 2)
const plural = (value: number, unit: string) => `${value} ${unit}${value === 1 ? '' : 's'}`

/**
 * Calls run in rounds of `concurrency`, each about 2 minutes: 100 contacts at 5 at a time is 20
 * rounds, "about 40 minutes". Under an hour the minutes are shown as they are; up to two days in
 * hours, and beyond in days, both rounded to the nearest half ("about 2.5 hours"). Retries and
 * calling windows can only lengthen a job, so this is the least it will take.
 */
export const estimateDuration = (contacts: number, concurrency: number) => {
  const minutes = Math.ceil(contacts / concurrency) * MINUTES_PER_CALL
  if (minutes < 60) return `about ${plural(minutes, 'minute')}`
  const hours = minutes / 60
  if (hours < 48) return `about ${plural(halves(hours), 'hour')}`
  return `about ${plural(halves(hours / 24), 'day')}`
}
