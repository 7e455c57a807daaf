/**
 * The fake upstream of `npm run bench -- chat`, in a process of its own (forked by bench/chat.ts):
 * sharing the load generator's event loop, its chunks waited behind the client's parsing and the
 * direct readings of (a) were no longer a clean baseline. With BENCH_UPSTREAM_TLS (a JSON key and
 * certificate) it speaks HTTPS, HTTP/2 to clients that offer it, as the hosted providers do. Talks
 * over IPC: `ready` with its base URL, then `reply` (the fallback reply from now on), `connections`
 * (how many clients opened, and have open) and `stop` on request, each answered with `done`.
 */
import { type FakeReply, startFakeLlm } from '../server/test/helpers/fake-llm.ts'

type Request = { type: 'reply'; reply: FakeReply } | { type: 'connections' } | { type: 'stop' }

const tls = process.env.BENCH_UPSTREAM_TLS ? JSON.parse(process.env.BENCH_UPSTREAM_TLS) : undefined
const llm = await startFakeLlm({ tls })
const send = (message: Record<string, unknown>) => process.send?.(message)

process.on('message', async (request: Request) => {
  if (request.type === 'reply') {
    llm.setFallback(request.reply)
    send({ type: 'done' })
  } else if (request.type === 'connections') {
    send({ type: 'done', ...llm.connections() })
  } else {
    await llm.close()
    send({ type: 'done' })
    process.exit(0)
  }
})
send({ type: 'ready', url: llm.baseUrl })
