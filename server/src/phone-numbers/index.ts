/** phone-numbers/: other areas use it through this file. */
export { checkE164, onlyZoneOfRegion } from './e164.ts'
export {
  INBOUND_RECONCILE_JOB,
  reconcileInbound,
  registerPhoneNumberJobs,
  schedulePhoneNumberJobs,
} from './inbound.ts'
export { registerPhoneNumberRoutes } from './routes.ts'
export { findPhoneNumber, findPhoneNumberById, findTransferLine, type PhoneNumberRow } from './store.ts'
