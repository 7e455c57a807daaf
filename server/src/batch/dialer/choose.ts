import type { CallingWindow } from '@parley/shared'
import { DateTime } from 'luxon'
import { isInsideWindow, nextWindowOpening } from './calling-window.ts'
import type { ClaimCandidate, ClaimChoice } from './store.ts'

const NEVER_OPENS_RECHECK_MS = 24 * 60 * 60 * 1000

const isKnownZone = (zone: string) => DateTime.now().setZone(zone).isValid

/**
 * Picks which due contacts to dial now. Without a window: the first `freeSlots`. With one: those
 * inside it in their own zone (else the job's); the others are put off until their window opens,
 * so they wait without a slot and without being scanned again before then.
 */
export const chooseContacts = ({
  candidates,
  freeSlots,
  window,
  jobZone,
  now,
}: {
  candidates: ClaimCandidate[]
  freeSlots: number
  window: CallingWindow | null
  jobZone: string
  now: Date
}): ClaimChoice => {
  if (!window) return { claim: candidates.slice(0, freeSlots).map(({ id }) => id), defer: [] }
  const claim: string[] = []
  const defer: ClaimChoice['defer'] = []
  for (const { id, timeZone } of candidates) {
    const zone = timeZone && isKnownZone(timeZone) ? timeZone : jobZone
    if (isInsideWindow(window, zone, now)) {
      if (claim.length < freeSlots) claim.push(id)
      continue
    }
    const opening = nextWindowOpening(window, zone, now)
    defer.push({ id, until: opening ?? new Date(now.getTime() + NEVER_OPENS_RECHECK_MS) })
  }
  return { claim, defer }
}
