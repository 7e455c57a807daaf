import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type HttpTarget, startHttpTarget } from '../../test/helpers/http-target.ts'
import { createTeam, secretKeyFor } from '../../test/helpers/organization.ts'
import { privateIpv6 } from '../../test/helpers/special-addresses.ts'
import { startTestServer, type TestServer } from '../../test/helpers/test-server.ts'
import { enqueueWebhook, WEBHOOK_MAX_ATTEMPTS } from './service.ts'
import { signWebhook, verifyWebhook } from './signature.ts'

let server: TestServer
let receiver: HttpTarget
let failuresLeft = 0
beforeAll(async () => {
  receiver = await startHttpTarget((_request, response) => {
    const status = failuresLeft > 0 ? 500 : 200
    failuresLeft = Math.max(0, failuresLeft - 1)
    response.writeHead(status, { 'content-type': 'application/json' }).end('{"ok":true}')
  })
  server = await startTestServer({
    env: { OUTBOUND_ALLOW_HOSTS: receiver.hostAndPort, WEBHOOK_RETRY_BASE_MS: '50' },
  })
})
afterAll(async () => {
  await server.destroy()
  await receiver.close()
})

const waitFor = async <T>(probe: () => Promise<T | undefined>, what: string): Promise<T> => {
  for (let i = 0; i < 400; i++) {
    const value = await probe()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`timed out waiting for ${what}`)
}

describe('signatures', () => {
  it('verify with the secret within the tolerance, and not otherwise', () => {
    const body = '{"event":"chat.ended"}'
    const timestamp = Math.floor(Date.now() / 1000)
    const header = signWebhook({ secret: 'whsec_a', body, timestamp })
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
    expect(verifyWebhook({ secret: 'whsec_a', body, header })).toBe(true)
    expect(verifyWebhook({ secret: 'whsec_b', body, header })).toBe(false)
    expect(verifyWebhook({ secret: 'whsec_a', body: `${body} `, header })).toBe(false)
    expect(verifyWebhook({ secret: 'whsec_a', body, header, now: Date.now() + 600_000 })).toBe(false)
  })

  it('bounds each attempt at 7 s and gives up after 5', () => {
    // The default; webhook-timeout.test.ts shortens it to see an attempt time out.
    expect(server.config.webhookTimeoutMs).toBe(7000)
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(5)
  })
})

describe('deliveries', () => {
  it('are signed with the agent secret, retried after a 500, and listed with their attempts', async () => {
    const team = await createTeam(server)
    const key = await secretKeyFor(server, team.owner)
    const created = await server.request('/v1/agents', {
      method: 'POST',
      token: key,
      json: {
        name: 'Hooked',
        agentArchitecture: 'text',
        model: 'gpt-4o-mini',
        systemPrompt: 'Hi',
        webhookUrl: `${receiver.origin}/hook`,
      },
    })
    const { data: agent } = await created.json()
    failuresLeft = 1
    const before = receiver.received.length
    await enqueueWebhook(server.ctx, {
      organizationId: team.organizationId,
      agentId: agent.id,
      url: `${receiver.origin}/hook`,
      event: 'chat.ended',
      data: { conversation_id: 'c1', agent_id: agent.id },
    })
    const deliveries = await waitFor(async () => {
      const response = await server.request(`/v1/agents/${agent.id}/webhook-deliveries`, { token: key })
      const body = await response.json()
      return body.data[0]?.status === 'succeeded' ? body : undefined
    }, 'the delivery to succeed')
    expect(deliveries.data[0]).toMatchObject({
      event: 'chat.ended',
      attempts: 2,
      lastStatusCode: 200,
      lastError: null,
    })

    const attempts = receiver.received.slice(before)
    expect(attempts).toHaveLength(2)
    for (const attempt of attempts) {
      const header = String(attempt.headers['x-parley-signature'])
      expect(verifyWebhook({ secret: agent.webhookSecret, body: attempt.body, header })).toBe(true)
      expect(JSON.parse(attempt.body)).toMatchObject({
        event: 'chat.ended',
        timestamp: expect.any(String),
        data: { conversation_id: 'c1' },
      })
    }
    expect((await server.request('/v1/agents/NOPE/webhook-deliveries', { token: key })).status).toBe(404)
  })
})

describe('testing and redelivering', () => {
  it('a test ping is signed, sent once, and its answer is the response; redeliver sends a delivery again', async () => {
    const team = await createTeam(server)
    const key = await secretKeyFor(server, team.owner)
    const created = await server.request('/v1/agents', {
      method: 'POST',
      token: key,
      json: {
        name: 'Pinged',
        agentArchitecture: 'text',
        model: 'gpt-4o-mini',
        systemPrompt: 'Hi',
        webhookUrl: `${receiver.origin}/hook`,
      },
    })
    const { data: agent } = await created.json()

    const before = receiver.received.length
    const ping = await server.request(`/v1/agents/${agent.id}/webhook/test`, { method: 'POST', token: key })
    expect(ping.status).toBe(200)
    const { data: pinged } = await ping.json()
    expect(pinged).toMatchObject({
      event: 'ping',
      status: 'succeeded',
      attempts: 1,
      lastStatusCode: 200,
      lastResponse: '{"ok":true}',
    })
    const sent = receiver.received.slice(before)
    expect(sent).toHaveLength(1)
    expect(
      verifyWebhook({
        secret: agent.webhookSecret,
        body: sent[0]?.body ?? '',
        header: String(sent[0]?.headers['x-parley-signature']),
      }),
    ).toBe(true)
    expect(JSON.parse(sent[0]?.body ?? '{}')).toMatchObject({ event: 'ping', data: { agent_id: agent.id } })

    // A failing endpoint: the ping says so at once and is not retried.
    failuresLeft = 1
    const failed = await (
      await server.request(`/v1/agents/${agent.id}/webhook/test`, { method: 'POST', token: key })
    ).json()
    expect(failed.data).toMatchObject({ status: 'failed', lastStatusCode: 500, nextAttemptAt: null })

    const again = await server.request(
      `/v1/agents/${agent.id}/webhook-deliveries/${failed.data.id}/redeliver`,
      {
        method: 'POST',
        token: key,
      },
    )
    expect(again.status).toBe(200)
    const { data: redelivered } = await again.json()
    expect(redelivered.id).not.toBe(failed.data.id)
    expect(redelivered).toMatchObject({ event: 'ping', status: 'succeeded', payload: failed.data.payload })

    const stranger = await secretKeyFor(server, (await createTeam(server)).owner)
    const theirs = await server.request(
      `/v1/agents/${agent.id}/webhook-deliveries/${failed.data.id}/redeliver`,
      {
        method: 'POST',
        token: stranger,
      },
    )
    expect(theirs.status).toBe(404)
    const unknown = await server.request(`/v1/agents/${agent.id}/webhook-deliveries/NOPE/redeliver`, {
      method: 'POST',
      token: key,
    })
    expect(unknown.status).toBe(404)
  })
})

describe('webhook URLs when saved', () => {
  const textAgent = { name: 'Hooked', agentArchitecture: 'text', model: 'gpt-4o-mini', systemPrompt: 'Hi' }
  let key: string
  let agentId: string
  beforeAll(async () => {
    const team = await createTeam(server)
    key = await secretKeyFor(server, team.owner)
    const created = await server.request('/v1/agents', { method: 'POST', token: key, json: textAgent })
    agentId = (await created.json()).data.id
  })

  it.each([
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/hook',
    'https://127.0.0.1/hook',
    'https://2130706433/hook', // 127.0.0.1 as a decimal number
    'https://0x7f000001/hook', // and in hex
    'https://10.0.0.1/hook',
    'https://[::ffff:169.254.169.254]/hook',
    'https://user:secret@hooks.example.test/hook',
    'https://localhost/hook',
    'http://hooks.example.test/hook',
  ])('refuse %s on create and on update, changing nothing', async (webhookUrl) => {
    const created = await server.request('/v1/agents', {
      method: 'POST',
      token: key,
      json: { ...textAgent, webhookUrl },
    })
    expect(created.status).toBe(400)
    expect(await created.json()).toMatchObject({
      success: false,
      error: expect.stringMatching(/^webhookUrl/),
    })
    const updated = await server.request(`/v1/agents/${agentId}`, {
      method: 'PATCH',
      token: key,
      json: { webhookUrl },
    })
    expect(updated.status).toBe(400)
    const current = await server.request(`/v1/agents/${agentId}`, { token: key })
    expect((await current.json()).data.webhookUrl).toBeNull()
  })

  it('refuse a URL in every special-purpose IPv6 block, on create and on update', async () => {
    const accepted: string[] = []
    for (const [address] of privateIpv6) {
      const webhookUrl = `https://[${address}]:8443/x`
      const created = await server.request('/v1/agents', {
        method: 'POST',
        token: key,
        json: { ...textAgent, webhookUrl },
      })
      const updated = await server.request(`/v1/agents/${agentId}`, {
        method: 'PATCH',
        token: key,
        json: { webhookUrl },
      })
      if (created.status !== 400 || updated.status !== 400) accepted.push(address)
    }
    expect(accepted).toEqual([])
    const current = await server.request(`/v1/agents/${agentId}`, { token: key })
    expect((await current.json()).data.webhookUrl).toBeNull()
  })

  it('accept a plain-HTTP local receiver on OUTBOUND_ALLOW_HOSTS', async () => {
    const updated = await server.request(`/v1/agents/${agentId}`, {
      method: 'PATCH',
      token: key,
      json: { webhookUrl: `${receiver.origin}/hook` },
    })
    expect(updated.status).toBe(200)
    expect((await updated.json()).data.webhookUrl).toBe(`${receiver.origin}/hook`)
  })
})
