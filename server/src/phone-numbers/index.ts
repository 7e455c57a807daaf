/** phone-numbers/: other areas use it through this file. */
export { checkE164, onlyZoneOfRegion } from './e164.ts'
export { registerPhoneNumberRoutes } from './routes.ts'
export { findPhoneNumber, findTransferLine, type PhoneNumberRow } from './store.ts'
