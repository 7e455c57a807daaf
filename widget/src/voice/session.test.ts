import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CallFailure, createVoiceSession } from './session.ts'

/** A real HTTP server answering each agent id with the status and body the spec gives it. */
const answers: Record<string, { status: number; body: unknown }> = {
  ok: {
    status: 200,
    body: { room_name: 'agent_a_u_1', token: 'jwt', livekit_url: 'wss://media.example', agent_name: 'Ava' },
  },
  broke: { status: 402, body: { detail: 'Insufficient credits', code: 'insufficient_credits' } },
  media: { status: 500, body: { detail: 'Failed to create the voice session', code: 'media_server_error' } },
  off: {
    status: 500,
    body: { detail: 'Failed to create the voice session: voice is off on this server', code: 'voice_off' },
  },
  text: { status: 400, body: { detail: 'Agent must be pipeline or realtime', code: 'not_voice_agent' } },
  garbled: { status: 200, body: { token: 42 } },
}

let server: Server
let baseUrl = ''
const seen: { key: string | undefined; studio?: string; body: string }[] = []

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString()
    })
    request.on('end', () => {
      const studio = request.headers['x-studio-token'] as string | undefined
      seen.push({ key: request.headers['x-api-key'] as string | undefined, ...(studio && { studio }), body })
      const answer = answers[(JSON.parse(body) as { agent_id: string }).agent_id] ?? answers.media
      response.writeHead(answer?.status ?? 500, { 'content-type': 'application/json' })
      response.end(JSON.stringify(answer?.body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
})
afterAll(() => new Promise((resolve) => server.close(resolve)))

const failureOf = (agentId: string, url = baseUrl) =>
  createVoiceSession({ baseUrl: url, apiKey: 'tk_widget_key', agentId }).then(
    () => 'no failure',
    (error: unknown) => (error instanceof CallFailure ? error.failure : String(error)),
  )

describe('voice session request', () => {
  it('posts the agent id with the widget key and returns where to connect', async () => {
    const session = await createVoiceSession({ baseUrl, apiKey: 'tk_widget_key', agentId: 'ok' })
    expect(session).toEqual({ url: 'wss://media.example', token: 'jwt', agentName: 'Ava' })
    expect(seen.at(-1)).toEqual({ key: 'tk_widget_key', body: '{"agent_id":"ok"}' })
  })

  it('sends the studio token in its own header when the studio embeds the widget', async () => {
    await createVoiceSession({ baseUrl, apiKey: '', studioToken: 'studio.jwt.token', agentId: 'ok' })
    expect(seen.at(-1)).toEqual({ key: undefined, studio: 'studio.jwt.token', body: '{"agent_id":"ok"}' })
  })

  it('names each refusal by what the visitor is told: 402, 500, any other, a malformed answer, no server', async () => {
    expect(await failureOf('broke')).toBe('insufficient_credits')
    expect(await failureOf('media')).toBe('media_error')
    expect(await failureOf('off')).toBe('voice_off')
    expect(await failureOf('text')).toBe('error')
    expect(await failureOf('garbled')).toBe('error')
    expect(await failureOf('ok', 'http://127.0.0.1:1')).toBe('network')
  })
})
