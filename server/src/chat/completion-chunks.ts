import { createParser, type EventSourceMessage } from 'eventsource-parser'
import OpenAI from 'openai'

type ChatCompletionChunk = OpenAI.Chat.Completions.ChatCompletionChunk

/** As the openai client tells an abort (ours, or its own timeout) from a failure. */
const isAbortError = (error: unknown) =>
  typeof error === 'object' && error !== null && 'name' in error && error.name === 'AbortError'

/**
 * The chunks of a streamed chat completion, read off its response body as the openai client's own
 * Stream reads them: `[DONE]` ends them, an event carrying `error` is the provider's APIError, and
 * an abort ends them quietly. One generator over the body's reader instead of the client's four
 * (with their line and SSE decoders): each open reply kept those, waiting, for its whole stream.
 * A round left early or failed cancels the body, which resets the upstream request as the
 * client's abort did.
 */
export const readCompletionChunks = async function* (response: Response): AsyncIterable<ChatCompletionChunk> {
  if (!response.body) throw new OpenAI.OpenAIError('Attempted to iterate over a response with no body')
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let messages: EventSourceMessage[] = []
  const parser = createParser({ onEvent: (message) => messages.push(message) })
  let isDone = false
  let isRead = false
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      parser.feed(decoder.decode(value, { stream: true }))
      const received = messages
      messages = []
      for (const { data } of received) {
        if (isDone) continue
        if (data.startsWith('[DONE]')) {
          isDone = true
          continue
        }
        const chunk = JSON.parse(data)
        if (chunk?.error) throw new OpenAI.APIError(undefined, chunk.error, undefined, response.headers)
        yield chunk as ChatCompletionChunk
      }
    }
    isRead = true
  } catch (error) {
    if (!isAbortError(error)) throw error
  } finally {
    if (!isRead) reader.cancel().catch(() => undefined)
  }
}
