import { StringDecoder } from 'node:string_decoder'
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import OpenAI from 'openai'
import { nodeBodyOf } from '../providers/llm-transport.ts'

type ChatCompletionChunk = OpenAI.Chat.Completions.ChatCompletionChunk

/** As the openai client tells an abort (ours, or its own timeout) from a failure. */
const isAbortError = (error: unknown) =>
  typeof error === 'object' && error !== null && 'name' in error && error.name === 'AbortError'

/**
 * The chunks of a streamed chat completion, read off its response body as the openai client's own
 * Stream reads them: `[DONE]` ends them, an event carrying `error` is the provider's APIError, and
 * an abort ends them quietly. One generator over the body's Node stream (llm-transport.ts) instead
 * of the client's four with their line and SSE decoders over a web stream: each open reply kept
 * those, waiting, for its whole stream. A round left early or failed destroys the body (the Node
 * stream's iterator does), which resets the upstream request as the client's abort did.
 */
export const readCompletionChunks = async function* (response: Response): AsyncIterable<ChatCompletionChunk> {
  const body = nodeBodyOf(response)
  if (!body) throw new OpenAI.OpenAIError('Attempted to iterate over a response with no body')
  // Node's decoder joins a character split across two chunks as a TextDecoder does; a TextDecoder
  // per reply held about 3 KiB outside the heap.
  const decoder = new StringDecoder('utf8')
  let messages: EventSourceMessage[] = []
  const parser = createParser({
    onEvent(message) {
      messages.push(message)
    },
  })
  let isDone = false
  try {
    for await (const part of body as AsyncIterable<Buffer>) {
      parser.feed(decoder.write(part))
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
  } catch (error) {
    if (!isAbortError(error)) throw error
  }
}
