import { setTimeout as sleep } from 'node:timers/promises'
import type { CompletionRequest, LlmEvent } from './llm-types.ts'

const WORD_DELAY_MS = 30
const GOODBYE = /\b(good\s?bye|bye|farewell|see you)\b/i

const lastUserText = (request: CompletionRequest) => {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i]
    if (message?.role === 'user' && typeof message.content === 'string') return message.content
    if (message?.role === 'tool') return null
  }
  return null
}

/**
 * The embedded stand-in for a real model (DESIGN.md §2): a short reply that says what it is,
 * streamed word by word, and a call to end_call when the user says goodbye and the agent has it.
 */
export const streamOfflineReply = async function* (request: CompletionRequest): AsyncIterable<LlmEvent> {
  const text = lastUserText(request)
  const canEnd = request.tools.some((tool) => tool.function.name === 'end_call')
  if (text !== null && canEnd && GOODBYE.test(text)) {
    yield { type: 'tool_calls', calls: [{ id: 'offline-end', name: 'end_call', arguments: '{}' }] }
    yield { type: 'usage', inputTokens: 0, outputTokens: 0 }
    return
  }
  const reply =
    text === null
      ? '[Offline model] Done.'
      : `[Offline model] No language model is configured on this server, so this is a canned reply. You said: "${text.slice(0, 200)}". Set LLM_BASE_URL for real answers.`
  for (const word of reply.split(/(?<= )/)) {
    if (request.signal.aborted) return
    yield { type: 'text', delta: word }
    await sleep(WORD_DELAY_MS, undefined, { signal: request.signal }).catch(() => undefined)
  }
  yield { type: 'usage', inputTokens: 0, outputTokens: 0 }
}
