/** billing/: other areas use it through this file. */
export {
  coverHold,
  findOrphanedReplyHolds,
  heldMicros,
  type OrphanedReplyHold,
  placeHold,
  placeHolds,
  type ReplyRound,
  referHold,
  releaseHold,
  releaseHoldsOf,
  requireHold,
  settleHold,
} from './holds.ts'
export {
  changeBalance,
  debitUsages,
  getBalanceMicros,
  listLedger,
  presentLedgerEntry,
  readLedgerPage,
  toMicros,
  toUsd,
  type UsageChange,
} from './service.ts'
