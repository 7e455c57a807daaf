/**
 * calls/: the one place a call opens, is dispatched to the agent worker, runs and closes. Every
 * other area uses it through this file.
 *
 * - Opening, one file per way in: web-call.ts (a visitor's voice session); dialled-call.ts (a
 *   number Parley rings: the batch dialer asks for its contacts' calls, campaigns stay in batch/);
 *   requested-call.ts (one call on request) and inbound-call.ts (a caller rings one of the
 *   organization's numbers) go beside them.
 * - dispatch-metadata.ts: the one dispatch-metadata builder (its schema is in @parley/shared).
 * - worker-api.ts: what the voice agent worker asks (setup, handoff, end); transfer.ts: its
 *   transfers to a person (transfer-store.ts records them); contacts.ts: the contact
 *   reader batch/ registers for a dialled call's placeholders.
 * - presence.ts, close.ts, records.ts, jobs.ts, pricing.ts, rooms.ts: who is in the room, the close
 *   and its billing, the records, the sweeps, the prices.
 */
export { analyzeCall } from './analysis.ts'
export { type ContactReader, registerContactReader } from './contacts.ts'
export {
  type ContactToDial,
  closeUnansweredCall,
  type DialSource,
  dialCall,
  type OpenedDial,
  openDialledCalls,
  RINGING_TIMEOUT_SECONDS,
} from './dialled-call.ts'
export {
  agentRuntimeConfig,
  buildDispatchMetadata,
  type CallParty,
  type ContactOfCall,
  configForContact,
  sipIdentityOf,
} from './dispatch-metadata.ts'
export { openInboundCall } from './inbound-call.ts'
export { registerCallJobs, scheduleCallJobs } from './jobs.ts'
export { optOutOfCall } from './opt-out.ts'
export { recordAgentJoined, recordAgentLeft, recordPersonJoined } from './presence.ts'
export {
  ESTIMATED_CALL_MINUTES,
  estimateCallMicros,
  VOICE_MICROS_PER_MINUTE,
  voiceRateFor,
} from './pricing.ts'
export { deleteCallRoom, endCallsOfKey } from './rooms.ts'
export { registerCallRoutes } from './routes.ts'
export {
  type CallRefiningStep,
  type CallRow,
  type CallsClosingStep,
  closeCall,
  onCallClosed,
  onCallRefining,
  onCallsClosing,
  openCall,
  openCalls,
} from './service.ts'
export { personJoinBilling } from './store.ts'
export { TRANSFER_RINGING_TIMEOUT_SECONDS, transferCall } from './transfer.ts'
export { createVoiceSession, mediaServerError } from './web-call.ts'
export { callSetupFor, endCallByWorker, getCallSetup, handOffCall, reportSipStatus } from './worker-api.ts'
