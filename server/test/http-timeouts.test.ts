import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKey, signUp } from './helpers/accounts.ts'
import { createChatSession, createTextAgent, readChatStream, textOf } from './helpers/chat.ts'
import { type FakeLlm, startFakeLlm } from './helpers/fake-llm.ts'
import { startTestServer, type TestServer } from './helpers/test-server.ts'

/**
 * The HTTP server's own time-outs, shortened: a client has 200 ms for its headers and 400 ms for
 * its whole request; an answer (a reply streamed over SSE) is not bound by either.
 */
let server: TestServer
let llm: FakeLlm
beforeAll(async () => {
  llm = await startFakeLlm()
  server = await startTestServer({
    env: { LLM_BASE_URL: llm.baseUrl, HTTP_HEADERS_TIMEOUT_MS: '200', HTTP_REQUEST_TIMEOUT_MS: '400' },
  })
})
afterAll(async () => {
  await server.destroy()
  await llm.close()
})

/** Opens a raw connection, writes `text` and never more; answers what the server sent before it closed. */
const sendAndWait = (text: string) =>
  new Promise<string>((resolve, reject) => {
    let received = ''
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1', () => socket.write(text))
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1')
    })
    socket.on('close', () => resolve(received))
    socket.on('error', reject)
  })

describe('HTTP server time-outs', () => {
  it('drops a client whose headers never finish (slow loris) with 408', async () => {
    const answer = await sendAndWait('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a')
    expect(answer).toMatch(/^HTTP\/1\.1 408 /)
  })

  it('drops a client whose body never comes with 408', async () => {
    const answer = await sendAndWait(
      'POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":',
    )
    expect(answer).toMatch(/^HTTP\/1\.1 408 /)
  })

  it('does not cut an answer that streams past both time-outs', async () => {
    const owner = await signUp(server)
    const key = (await createKey(server, owner.token)).key
    const agentId = await createTextAgent(server, key)
    const session = await createChatSession(server, { key, agentId })
    let release = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    llm.queue({ text: ['Still ', 'here ', 'after a while.'], hold: { atChunk: 1, until: held } })
    const response = await server.request(`/v1/chat/sessions/${session.conversation_id}/messages`, {
      method: 'POST',
      token: session.session_token,
      json: { message: 'Take your time' },
    })
    expect(response.status).toBe(200)
    // Past the request time-out and several connection checks, then the rest of the reply.
    setTimeout(release, 900)
    const events = await readChatStream(response)
    expect(textOf(events)).toBe('Still here after a while.')
    expect(events.at(-1)?.event).toBe('stream_end')
  })
})
