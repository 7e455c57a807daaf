import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FakeLlm, startFakeLlm } from '../../server/test/helpers/fake-llm.ts'
import { type HttpTarget, startHttpTarget } from '../../server/test/helpers/http-target.ts'
import { startTestServer, type TestServer } from '../../server/test/helpers/test-server.ts'
import { type ChatStreamEvent, createParleyClient, ParleyError, verifyWebhook } from '../src/index.ts'

/**
 * @parley/client against a real server (the LLM a fake on loopback): sign up, a key, an agent, a
 * session, a streamed reply (typed events, resumed from Last-Event-ID), history, end, the signed
 * chat.ended webhook verified, a CSV batch, cursor pages and a typed refusal.
 */

let server: TestServer
let llm: FakeLlm
let receiver: HttpTarget
beforeAll(async () => {
  llm = await startFakeLlm()
  receiver = await startHttpTarget((_request, response) => {
    response.writeHead(200).end()
  })
  server = await startTestServer({
    env: { LLM_BASE_URL: llm.baseUrl, OUTBOUND_ALLOW_HOSTS: receiver.hostAndPort },
  })
})
afterAll(async () => {
  await server?.destroy()
  await llm?.close()
  await receiver?.close()
})

const password = 'correct horse battery staple'

describe('@parley/client', () => {
  it('runs the whole flow against a real server, typed end to end', async () => {
    const anonymous = createParleyClient({ baseUrl: server.url })
    const { data: signup } = await anonymous.api.POST('/api/auth/signup', {
      body: { organizationName: 'Acme', name: 'Ada', email: `ada-${Date.now()}@example.com`, password },
    })
    if (!signup) throw new Error('sign-up refused')
    const studio = createParleyClient({ baseUrl: server.url, studioToken: signup.token })
    const { data: key } = await studio.api.POST('/api/api-keys', { body: { name: 'Server', type: 'secret' } })
    if (!key) throw new Error('no key')

    const parley = createParleyClient({ baseUrl: server.url, apiKey: key.key })
    const { data: created } = await parley.api.POST('/v1/agents', {
      body: {
        name: 'Support',
        agentArchitecture: 'text',
        systemPrompt: 'You help Acme customers.',
        webhookUrl: `${receiver.origin}/parley`,
      },
    })
    if (!created) throw new Error('no agent')
    await parley.api.PATCH('/v1/agents/{agentId}', {
      params: { path: { agentId: created.data.id } },
      body: { active: true },
    })

    const session = await parley.chat.createSession({ agent_id: created.data.id, user_identifier: 'user-42' })
    const reply = parley.chat.reply(session, 'Where is my order?')
    const events: ChatStreamEvent[] = []
    for await (const event of reply) events.push(event)
    expect(events[0]?.event).toBe('stream_start')
    expect(events.at(-1)?.event).toBe('stream_end')
    const text = events.map((event) => (event.event === 'chunk' ? event.data.delta : '')).join('')
    expect(text.length).toBeGreaterThan(0)
    expect(reply.lastEventId).toBe(events.at(-1)?.id)

    // The same message and key again, after the second event: the rest of that reply, not a new one.
    const resumed: ChatStreamEvent[] = []
    const second = events[1]?.id
    for await (const event of parley.chat.reply(session, 'Where is my order?', {
      idempotencyKey: reply.idempotencyKey,
      ...(second !== undefined ? { lastEventId: second } : {}),
    }))
      resumed.push(event)
    expect(resumed.map((event) => event.id)).toEqual(events.slice(2).map((event) => event.id))

    const history = await parley.chat.history(session)
    expect(history.messages.map((message) => message.role)).toEqual(['user', 'assistant'])
    expect(await parley.chat.end(session)).toMatchObject({ success: true })

    // chat.ended reaches the agent's endpoint, signed with the agent's secret.
    const delivered = await waitFor(() =>
      receiver.received.find((request) => request.body.includes('chat.ended')),
    )
    const event = verifyWebhook(
      delivered.body,
      String(delivered.headers['x-parley-signature']),
      created.data.webhookSecret,
    )
    expect(event?.event).toBe('chat.ended')
    if (event?.event === 'chat.ended') expect(event.data.conversation_id).toBe(session.conversation_id)
    expect(
      verifyWebhook(delivered.body, String(delivered.headers['x-parley-signature']), 'whsec_wrong'),
    ).toBeNull()
    expect(
      verifyWebhook(
        `${delivered.body} `,
        String(delivered.headers['x-parley-signature']),
        created.data.webhookSecret,
      ),
    ).toBeNull()

    // Conversations across cursor pages (one a page), typed items.
    const ids: string[] = []
    for await (const conversation of parley.conversations({ limit: 1 })) ids.push(conversation.id)
    expect(ids).toContain(session.conversation_id)

    // A CSV batch: a voice agent, its number, then the file.
    const { data: catalogue } = await parley.api.GET('/v1/catalogue')
    const defaults = catalogue?.data.defaults
    if (!defaults) throw new Error('no catalogue')
    const { data: voice } = await parley.api.POST('/v1/agents', {
      body: {
        name: 'Caller',
        agentArchitecture: 'pipeline',
        systemPrompt: 'You call customers.',
        model: defaults.model,
        stt: defaults.stt,
        tts: defaults.tts,
        voiceId: defaults.voiceId,
      },
    })
    if (!voice) throw new Error('no voice agent')
    await parley.api.PATCH('/v1/agents/{agentId}', {
      params: { path: { agentId: voice.data.id } },
      body: { active: true },
    })
    await server.request(`/admin/organizations/${signup.organization.id}/credits`, {
      method: 'POST',
      token: server.config.adminToken,
      json: { amountUsd: 20, reason: 'client test' },
    })
    const { data: number } = await parley.api.POST('/v1/phone-numbers', {
      body: { number: '+14155550100', outboundAgentId: voice.data.id, sipTrunkId: 'ST_test' },
    })
    if (!number) throw new Error('no number')
    const batch = await parley.batch.createFromCsv({
      fromPhoneNumberId: number.data.id,
      name: 'Renewals',
      file: 'phone,name\n+14155552671,Ada\n+14155552672,Grace\n',
    })
    expect(batch).toMatchObject({ success: true, totalContacts: 2 })
    const fromJson = await parley.batch.createFromJson({
      fromPhoneNumberId: number.data.id,
      name: 'Renewals (JSON)',
      contacts: [{ phone: '+14155552673', name: 'Alan' }],
    })
    expect(fromJson.totalContacts).toBe(1)

    // A refusal is a ParleyError with the contract's status and code.
    const refused = await parley.batch
      .createFromJson({ fromPhoneNumberId: number.data.id, name: 'Empty', contacts: [] })
      .catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(ParleyError)
    expect((refused as ParleyError).status).toBe(400)
    expect((refused as ParleyError).code).toBe('no_valid_contacts')
  }, 60_000)
})

/** Polls `find` on the event loop (no sleeps) until it answers something. */
const waitFor = async <T>(find: () => T | undefined, attempts = 2000): Promise<T> => {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const found = find()
    if (found !== undefined) return found
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  throw new Error('not found in time')
}
