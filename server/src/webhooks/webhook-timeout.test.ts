import type { ServerResponse } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatCall, createChatSession } from '../../test/helpers/chat.ts'
import { type HttpTarget, startHttpTarget } from '../../test/helpers/http-target.ts'
import { createTeam, makeAgent, secretKeyFor } from '../../test/helpers/organization.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'

let server: TestServer
let receiver: HttpTarget
/** The first attempt gets no answer at all; `abandoned` counts attempts whose sender hung up. */
let silentAttempts = 1
let abandoned = 0

beforeAll(async () => {
  receiver = await startHttpTarget((_request, response: ServerResponse) => {
    if (silentAttempts > 0) {
      silentAttempts--
      response.on('close', () => {
        if (!response.writableEnded) abandoned++
      })
      return
    }
    response.writeHead(200).end('ok')
  })
  // The spec's 7 s per attempt, shortened so the test does not wait 7 s for the time-out.
  server = await startTestServer({
    env: {
      OUTBOUND_ALLOW_HOSTS: receiver.hostAndPort,
      WEBHOOK_TIMEOUT_MS: '300',
      WEBHOOK_RETRY_BASE_MS: '1500',
    },
  })
})
afterAll(async () => {
  await server?.destroy()
  await receiver?.close()
})

describe('webhook time-out', () => {
  it('gives up an attempt after WEBHOOK_TIMEOUT_MS, records the time-out, and retries', async () => {
    const team = await createTeam(server)
    const key = await secretKeyFor(server, team.owner)
    // A plain-HTTP local receiver is accepted because it is on the outbound allow-list.
    const agent = await makeAgent(server, team.owner, { webhookUrl: `${receiver.origin}/hook` })
    const session = await createChatSession(server, { key, agentId: agent.id })
    expect((await chatCall(server, session, 'end')).status).toBe(200)

    const deliveryRow = () =>
      server.ctx.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('agent_id', '=', agent.id)
        .executeTakeFirst()
    // After the first attempt (the retry waits 1.5 s): the time-out recorded, another attempt due.
    await expect.poll(async () => (await deliveryRow())?.attempts ?? 0, { timeout: 15_000 }).toBe(1)
    expect(await deliveryRow()).toMatchObject({
      status: 'pending',
      last_status_code: null,
      last_error: 'timeout: no complete answer within 300 ms',
    })
    await expect.poll(() => abandoned, { timeout: 15_000 }).toBe(1)
    await expect.poll(async () => (await deliveryRow())?.status, { timeout: 15_000 }).toBe('succeeded')
    expect(receiver.received).toHaveLength(2)
    expect(await deliveryRow()).toMatchObject({ attempts: 2, last_status_code: 200 })
  })
})
