import type { ContactReader } from '../calls/index.ts'
import { findContact } from './store.ts'

/** The contact a dialled call rang, as calls/ reads it to fill the agent's placeholders. */
export const readContactOfCall: ContactReader = async (ctx, { organizationId, id }) => {
  const contact = await findContact(ctx.db, { organizationId, id })
  return contact
    ? { contactId: contact.id, phone: contact.phone, name: contact.name, fields: contact.fields }
    : null
}
