import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FakeLlm, startFakeLlm } from '../../test/helpers/fake-llm.ts'
import { selfSignedCertificate } from '../../test/helpers/tls.ts'
import { createLlmDispatcher, fetchThrough, nodeBodyOf } from './llm-transport.ts'

const STREAMS = 20

const openStream = (
  dispatcher: ReturnType<typeof createLlmDispatcher>,
  baseUrl: string,
  signal: AbortSignal,
) =>
  fetchThrough(dispatcher, `${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fake', messages: [], stream: true }),
    signal,
  })

describe('the LLM transport', () => {
  let llm: FakeLlm
  let certificate: { key: string; cert: string }

  beforeAll(async () => {
    certificate = selfSignedCertificate()
    llm = await startFakeLlm({ tls: certificate })
    llm.setFallback({ text: ['one'], hang: true })
  })
  afterAll(() => llm.close())

  it('carries many concurrent streamed replies over one HTTP/2 connection to a provider that offers it', async () => {
    const dispatcher = createLlmDispatcher({ ca: certificate.cert })
    const controller = new AbortController()
    const before = llm.connections().opened
    // The first reply finds the provider speaks HTTP/2 (requests sent while a connection is still
    // being set up each get one of their own); the rest share its connection.
    const responses = [await openStream(dispatcher, llm.baseUrl, controller.signal)]
    responses.push(
      ...(await Promise.all(
        Array.from({ length: STREAMS - 1 }, () => openStream(dispatcher, llm.baseUrl, controller.signal)),
      )),
    )
    expect(responses.map((response) => response.status)).toEqual(Array(STREAMS).fill(200))
    const [first] =
      (await nodeBodyOf(responses[0] as Response)
        ?.take(1)
        .toArray()) ?? []
    expect(String(first)).toContain('chat.completion.chunk')
    expect(llm.connections().opened - before).toBe(1)
    controller.abort()
    await dispatcher.close().catch(() => undefined)
  })

  it('keeps HTTP/1.1 for a plain-HTTP endpoint (a local vLLM or Ollama)', async () => {
    const plain = await startFakeLlm()
    try {
      const dispatcher = createLlmDispatcher()
      const first = await fetchThrough(dispatcher, `${plain.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'fake', messages: [], stream: true }),
      })
      expect(first.status).toBe(200)
      expect((await nodeBodyOf(first)?.toArray())?.join('')).toContain('[DONE]')
      await dispatcher.close()
    } finally {
      await plain.close()
    }
  })

  it("leaves a reply's body as the Node stream for chat's parser, and a refusal's as a web stream", async () => {
    const plain = await startFakeLlm()
    try {
      const dispatcher = createLlmDispatcher()
      const send = () =>
        fetchThrough(dispatcher, `${plain.baseUrl}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'fake', messages: [], stream: true }),
        })
      plain.setFallback({ text: ['one'] })
      const reply = await send()
      expect(reply.body).toBeNull()
      let text = ''
      for await (const part of nodeBodyOf(reply) as AsyncIterable<Buffer>) text += part.toString()
      expect(text).toContain('[DONE]')
      plain.setFallback({ status: 401 })
      const refusal = await send()
      expect(refusal.status).toBe(401)
      expect(nodeBodyOf(refusal)).toBeNull()
      expect(await refusal.text()).toContain('error')
      await dispatcher.close()
    } finally {
      await plain.close()
    }
  })
})
