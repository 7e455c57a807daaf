import { randomUUID } from 'node:crypto'
import express, { type Request, type Response, type Router } from 'express'

/**
 * A scripted stand-in for the chat API that follows platform-api.md's "Text chat"
 * and "SSE events" exactly, mounted on the real server under /stand-in. It produces on demand what
 * the offline model cannot: tool calls, handoffs, error events, 429, 402 and a connection dropped
 * mid-reply (the real API has no resume yet). real-api.test.js covers the real chat API. Replies are scripted by the visitor's
 * message, the way a fake LLM would be: "tool …", "handoff …", "bye", "fail", "slow", "drop",
 * "flood", "markdown"; anything else is echoed word by word.
 */
type Conversation = {
  agentId: string
  token: string
  messages: { role: string; content: string }[]
  isEnded: boolean
}

export const PAYMENT_REQUIRED_AGENT = 'agent-without-credits'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const createChatStandIn = ({ widgetKey }: { widgetKey: () => string }) => {
  const conversations = new Map<string, Conversation>()
  const dropped = new Set<string>()
  let sessionsCreated = 0
  const router: Router = express.Router()

  const refuse = (res: Response, status: number, code: string) =>
    res.status(status).json({ detail: code, code })
  const authorize = (req: Request, res: Response) => {
    const conversation = conversations.get(String(req.params.id))
    if (!conversation || conversation.isEnded) return void refuse(res, 404, 'session_not_found')
    if (req.get('authorization') !== `Bearer ${conversation.token}`)
      return void refuse(res, 401, 'invalid_token')
    return conversation
  }

  router.post('/sessions', (req, res) => {
    if (req.get('x-api-key') !== widgetKey()) return refuse(res, 401, 'invalid_api_key')
    const agentId = String(req.body?.agent_id ?? '')
    if (agentId === PAYMENT_REQUIRED_AGENT) return refuse(res, 402, 'insufficient_credits')
    sessionsCreated++
    const id = randomUUID()
    const conversation = { agentId, token: randomUUID(), messages: [], isEnded: false }
    conversations.set(id, conversation)
    res.status(201).json({
      conversation_id: id,
      session_token: conversation.token,
      agent_name: `Guide ${agentId.slice(-1)}`,
      greeting: `Hello from ${agentId}!`,
      agent_model: 'offline',
    })
  })

  router.get('/sessions/:id/messages', (req, res) => {
    const conversation = authorize(req, res)
    if (conversation) res.json({ messages: conversation.messages, count: conversation.messages.length })
  })

  router.post('/sessions/:id/end', (req, res) => {
    const conversation = authorize(req, res)
    if (!conversation) return
    conversation.isEnded = true
    res.json({ success: true, message: 'Session ended' })
  })

  router.post('/sessions/:id/messages', async (req, res) => {
    const conversation = authorize(req, res)
    if (!conversation) return
    const message = String(req.body?.message ?? '')
    if (message === 'flood') {
      res.set('Retry-After', '3')
      return refuse(res, 429, 'rate_limited')
    }
    const key = req.get('idempotency-key') ?? ''
    const resumeAfter = Number(req.get('last-event-id') ?? 0)
    if (!resumeAfter) conversation.messages.push({ role: 'user', content: message })
    res.status(200).set({ 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' }).flushHeaders()
    let id = 0
    const send = (event: string, data: unknown) => {
      id++
      if (id > resumeAfter) res.write(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    }
    const words = (text: string, delay = 25) =>
      text.split(/(?<= )/).reduce(async (previous, word) => {
        await previous
        send('chunk', { delta: word })
        await sleep(delay)
      }, Promise.resolve())
    let reply = ''
    const say = async (text: string, delay?: number) => {
      reply += text
      await words(text, delay)
    }
    send('stream_start', { agent_name: 'Guide' })
    const [command] = message.split(' ')
    if (command === 'fail') {
      send('error', { error: 'The model provider failed.' })
      return res.end()
    }
    if (command === 'tool') {
      send('tool_call', { name: 'lookup_order', status: 'executing' })
      await sleep(400)
      send('tool_result', { name: 'lookup_order', status: 'completed' })
      await say('Your order ships tomorrow.')
    } else if (command === 'handoff') {
      await say('Let me transfer you. ')
      send('handoff', { from_agent: 'Guide', to_agent: 'Billing Bot' })
      await say('Billing here, how can I help?')
    } else if (command === 'slow') {
      await say('This reply takes its time to arrive in full. ', 250)
      await say('Done.', 250)
    } else if (command === 'drop') {
      await say('One two three ')
      if (!dropped.has(key)) {
        dropped.add(key)
        // The connection dies mid-reply; the widget must resume with the same key and Last-Event-ID.
        return res.socket?.destroy()
      }
      await say('four five six.')
    } else if (command === 'markdown') {
      await say(
        '**Bold** <img src=x onerror="window.__pwned=1"> [bad](javascript:window.__pwned=2) [good](https://example.com)',
      )
    } else if (command === 'bye') {
      await say('Goodbye!')
    } else {
      await say(`You said: ${message}`)
    }
    conversation.messages.push({ role: 'assistant', content: reply })
    send('stream_end', { usage: { input_tokens: 1, output_tokens: 1 }, end_session: command === 'bye' })
    res.end()
  })

  router.get('/stats', (_req, res) => res.json({ sessionsCreated }))

  return router
}
