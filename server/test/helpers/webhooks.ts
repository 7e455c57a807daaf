import { readWebhookSecret } from '../../src/agents/service.ts'
import { verifyWebhook } from '../../src/webhooks/signature.ts'
import type { ReceivedRequest } from './http-target.ts'
import type { TestServer } from './test-server.ts'

/** Whether a delivery the receiver got carries a valid X-Parley-Signature under the agent's webhook secret. */
export const isSignedForAgent = async (
  server: TestServer,
  { organizationId, agentId }: { organizationId: string; agentId: string },
  delivery: ReceivedRequest | undefined,
) => {
  const secret = await readWebhookSecret(server.ctx, { organizationId, agentId })
  return verifyWebhook({
    secret: secret ?? '',
    body: delivery?.body ?? '',
    header: String(delivery?.headers['x-parley-signature']),
  })
}
