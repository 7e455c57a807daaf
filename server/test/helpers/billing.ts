import { changeBalance, getBalanceMicros } from '../../src/billing/service.ts'
import type { TestServer } from './test-server.ts'

/** Sets an organization's credit balance through the ledger (one correction for the difference). */
export const setBalanceMicros = async (
  server: TestServer,
  { organizationId, micros, reason = 'test' }: { organizationId: string; micros: number; reason?: string },
) => {
  const difference = micros - (await getBalanceMicros(server.ctx.db, organizationId))
  if (difference !== 0)
    await changeBalance(server.ctx, { organizationId, amountMicros: difference, kind: 'correction', reason })
}
