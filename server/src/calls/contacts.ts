import type { AppContext } from '../context.ts'
import type { ContactOfCall } from './dispatch-metadata.ts'

/**
 * How calls/ reads the contact a dialled call rang: the contacts are the batch area's (its
 * campaigns), so batch registers this reader when the app is built, and calls/ imports no campaign
 * code.
 */
export type ContactReader = (
  ctx: AppContext,
  input: { organizationId: string; id: string },
) => Promise<ContactOfCall | null>

const readers = new WeakMap<AppContext, ContactReader>()

export const registerContactReader = (ctx: AppContext, reader: ContactReader) => {
  readers.set(ctx, reader)
}

export const findContactOfCall: ContactReader = (ctx, input) => {
  const reader = readers.get(ctx)
  if (!reader) throw new Error('no contact reader registered: the batch area registers it in createApp')
  return reader(ctx, input)
}
