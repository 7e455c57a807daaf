/**
 * The fake upstream of `npm run bench -- chat`, in a process of its own (forked by bench/chat.ts):
 * sharing the load generator's event loop, its chunks waited behind the client's parsing and the
 * direct readings of (a) were no longer a clean baseline. Talks over IPC: `ready` with its base URL,
 * then `reply` (the fallback reply from now on) and `stop` on request, each answered with `done`.
 */
import { type FakeReply, startFakeLlm } from '../server/test/helpers/fake-llm.ts'

type Request = { type: 'reply'; reply: FakeReply } | { type: 'stop' }

const llm = await startFakeLlm()
const send = (message: Record<string, unknown>) => process.send?.(message)

process.on('message', async (request: Request) => {
  if (request.type === 'reply') {
    llm.setFallback(request.reply)
    send({ type: 'done' })
  } else {
    await llm.close()
    send({ type: 'done' })
    process.exit(0)
  }
})
send({ type: 'ready', url: llm.baseUrl })
