import cors from 'cors'
import express, { type Express, type RequestHandler, type Response, type Router } from 'express'
import { sql } from 'kysely'
import type { AppContext } from '../../server/src/context.ts'
import type { CompletionRequest, FakeLlm, FakeReply } from '../../server/test/helpers/fake-llm.ts'

/**
 * Test-only controls for the browser tests, mounted at /test-control on the real server. The API
 * under test stays the real /v1/chat; these only script the fake LLM, cut connections, count rows
 * and carry operator calls (the browser page is on another origin and holds no admin token).
 */

/** A scripted reply as JSON: `hold` names a gate the test opens with /llm/release. */
type ScriptedReply = Omit<FakeReply, 'hold'> & { hold?: { atChunk: number; name: string } }

type SendRecord = { idempotencyKey: string | null; lastEventId: string | null; res: Response }

const SEND_PATH = /^\/v1\/chat\/sessions\/([^/]+)\/messages$/

const lastUserMessage = (request: CompletionRequest) => {
  const message = request.messages.findLast((item) => item.role === 'user')
  return typeof message?.content === 'string' ? message.content : ''
}

/** Anything not scripted is echoed word by word: "You said: …". */
const echo = (message: string): FakeReply => ({
  text: `You said: ${message}`.split(/(?<= )/),
  usage: { input: 5, output: 5 },
})

const createGates = () => {
  const gates = new Map<string, { promise: Promise<void>; open: () => void }>()
  const gate = (name: string) => {
    let entry = gates.get(name)
    if (!entry) {
      let open = () => {}
      const promise = new Promise<void>((resolve) => {
        open = resolve
      })
      entry = { promise, open }
      gates.set(name, entry)
    }
    return entry
  }
  return { wait: (name: string) => gate(name).promise, open: (name: string) => gate(name).open() }
}

export const createTestControl = ({ llm }: { llm: FakeLlm }) => {
  const scripts = new Map<string, FakeReply[]>()
  const gates = createGates()
  const sends = new Map<string, SendRecord[]>()
  llm.setFallback((request) => {
    const message = lastUserMessage(request)
    return scripts.get(message)?.shift() ?? echo(message)
  })

  /** Records every send-message request and its response, so a test can cut that connection. */
  const recordSends: RequestHandler = (req, res, next) => {
    const match = req.method === 'POST' ? SEND_PATH.exec(req.path) : null
    if (match?.[1]) {
      const records = sends.get(match[1]) ?? []
      records.push({
        idempotencyKey: req.get('idempotency-key') ?? null,
        lastEventId: req.get('last-event-id') ?? null,
        res,
      })
      sends.set(match[1], records)
    }
    next()
  }

  const createRouter = (ctx: AppContext): Router => {
    const router = express.Router()
    router.use(cors({ origin: '*' }), express.json())

    /** {when, replies}: what the fake LLM answers, in turn, to the visitor's message `when`. */
    router.post('/llm', (req, res) => {
      const { when, replies } = req.body as { when: string; replies: ScriptedReply[] }
      const scripted = replies.map(
        ({ hold, ...reply }): FakeReply => ({
          ...reply,
          ...(hold ? { hold: { atChunk: hold.atChunk, until: gates.wait(hold.name) } } : {}),
        }),
      )
      scripts.set(when, [...(scripts.get(when) ?? []), ...scripted])
      res.json({ queued: scripted.length })
    })
    /** What the model was told tools answered, in the rounds that followed the visitor's `when`. */
    router.get('/llm/tool-results', (req, res) => {
      const rounds = llm.requests.filter((request) => lastUserMessage(request) === req.query.when)
      const results = rounds.flatMap((request) => request.messages.filter((item) => item.role === 'tool'))
      res.json([...new Set(results.map((item) => String(item.content)))])
    })
    router.post('/llm/release', (req, res) => {
      gates.open(String(req.body.name))
      res.json({ released: true })
    })

    /** Destroys the socket of the conversation's latest reply stream: a network drop, server side. */
    router.post('/drop', (req, res) => {
      const latest = sends.get(String(req.body.conversation_id))?.at(-1)
      if (!latest?.res.socket) return void res.status(404).json({ dropped: false })
      latest.res.socket.destroy()
      res.json({ dropped: true })
    })
    /** The headers of every send-message request of a conversation (resumes repeat the key). */
    router.get('/sends/:conversationId', (req, res) => {
      const records = sends.get(req.params.conversationId) ?? []
      res.json(records.map(({ idempotencyKey, lastEventId }) => ({ idempotencyKey, lastEventId })))
    })

    /** Forwards a call to the real operator API (/admin/...) with the server's ADMIN_TOKEN. */
    router.post('/operator', async (req, res) => {
      const { method, path, body } = req.body as { method: string; path: string; body?: unknown }
      if (!path.startsWith('/admin/')) return void res.status(400).json({ error: 'operator paths only' })
      const response = await fetch(`${req.protocol}://${req.get('host')}${path}`, {
        method,
        headers: { authorization: `Bearer ${ctx.config.adminToken}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      res.status(response.status).json(await response.json())
    })

    /** How many conversation rows the server holds for an agent (two tabs must share one). */
    router.get('/conversations', async (req, res) => {
      const row = await ctx.db
        .selectFrom('conversations')
        .select(sql<number>`count(*)::int`.as('count'))
        .where('agent_id', '=', String(req.query.agent_id))
        .executeTakeFirstOrThrow()
      res.json({ count: Number(row.count) })
    })
    return router
  }

  return {
    /** Resolves once the test opens the gate `name` (POST /test-control/llm/release). */
    gate: gates.wait,
    /** Mounts the controls; the recorder goes first so it sees the chat routes' requests. */
    mount: ({ app, ctx }: { app: Express; ctx: AppContext }) => {
      app.use('/test-control', createRouter(ctx))
      app.use(recordSends)
      // express runs middleware in the order added and the chat routes are already in place.
      const stack = (app.router as unknown as { stack: unknown[] }).stack
      stack.unshift(stack.pop())
    },
  }
}
