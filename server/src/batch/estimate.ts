import type { AgentArchitecture } from '@parley/shared'
import { ESTIMATED_CALL_MINUTES, estimateCallMicros } from '../calls/index.ts'

/**
 * The spec's stated estimate: one call of about 2 minutes costs 0.035 USD (pipeline) or 0.07 USD
 * (realtime): the per-minute prices calls are billed at (calls/pricing.ts), over 2 minutes.
 */
export const PRICE_PER_CALL_MICROS = {
  pipeline: estimateCallMicros('pipeline'),
  realtime: estimateCallMicros('realtime'),
} as const
export const MINUTES_PER_CALL = ESTIMATED_CALL_MINUTES

export type VoiceArchitecture = Exclude<AgentArchitecture, 'text'>

export const estimateCostMicros = (contacts: number, architecture: VoiceArchitecture) =>
  contacts * PRICE_PER_CALL_MICROS[architecture]

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
