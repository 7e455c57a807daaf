import OpenAI from 'openai'
import type { AppContext } from '../context.ts'
import { measureModelRound } from '../metrics/index.ts'
import { llmFetch } from '../providers/llm-transport.ts'
import { ProviderError } from '../providers/provider-error.ts'
import { hasLlmProvider, resolveModelEndpoint } from '../providers/registry.ts'
import { readCompletionChunks } from './completion-chunks.ts'
import type { CompletionRequest, LlmEvent, StreamCompletion, ToolCall } from './llm-types.ts'
import { streamOfflineReply } from './offline.ts'

export type {
  CompletionRequest,
  LlmEvent,
  LlmMessage,
  LlmTool,
  StreamCompletion,
  ToolCall,
} from './llm-types.ts'

/** One client, and the function streaming through it, per base URL, key and provider model. */
const sources = new Map<string, StreamCompletion>()
/** Organization keys make one entry each: past this many the oldest go (the map keeps insertion order). */
const MAX_SOURCES = 500

type SourceTarget = { provider: string; baseUrl: string; apiKey: string; providerModel: string }

const sourceFor = (target: SourceTarget) => {
  const id = `${target.provider}\n${target.baseUrl}\n${target.providerModel}\n${target.apiKey}`
  let source = sources.get(id)
  if (!source) {
    // No client retries: a retried stream would repeat words the user has already seen.
    const client = new OpenAI({
      baseURL: target.baseUrl,
      // A keyless endpoint (a local vLLM or Ollama) still gets a placeholder: never empty, so the
      // client never falls back to a key of its own environment (OPENAI_API_KEY).
      apiKey: target.apiKey || 'keyless',
      maxRetries: 0,
      timeout: 60_000,
      fetch: llmFetch,
    })
    source = (request) =>
      streamFromProvider(client, target.provider, { ...request, model: target.providerModel })
    if (sources.size >= MAX_SOURCES) sources.delete(sources.keys().next().value as string)
    sources.set(id, source)
  }
  return source
}

/** Streams one round through the `openai` client, joining tool-call argument fragments by index. */
const streamFromProvider = async function* (
  client: OpenAI,
  provider: string,
  request: CompletionRequest,
): AsyncIterable<LlmEvent> {
  const round = measureModelRound({ provider, model: request.model })
  try {
    for await (const event of streamRound(client, request, provider)) {
      round.firstEvent()
      yield event
    }
    round.end('ok')
  } catch (error) {
    round.end(request.signal?.aborted ? 'aborted' : 'error', error)
    throw ProviderError.from(provider, error, request.signal)
  }
}

const streamRound = async function* (
  client: OpenAI,
  { model, messages, tools, temperature, maxTokens, signal }: CompletionRequest,
  provider: string,
): AsyncIterable<LlmEvent> {
  // The raw response (the client still refuses a failed status with its APIError): its chunks
  // are read here, not by the client's Stream.
  const response = await client.chat.completions
    .create(
      {
        model,
        messages,
        temperature,
        // OpenAI's own API wants the newer name (its reasoning models refuse max_tokens); the other
        // OpenAI-compatible servers (Groq, Gemini, Anthropic, vLLM, Ollama) all read max_tokens.
        ...(provider === 'openai' ? { max_completion_tokens: maxTokens } : { max_tokens: maxTokens }),
        stream: true,
        stream_options: { include_usage: true },
        ...(tools.length > 0 ? { tools } : {}),
      },
      { signal },
    )
    .asResponse()
  const calls: ToolCall[] = []
  for await (const chunk of readCompletionChunks(response)) {
    if (chunk.usage)
      yield {
        type: 'usage',
        inputTokens: chunk.usage.prompt_tokens,
        outputTokens: chunk.usage.completion_tokens,
      }
    const delta = chunk.choices[0]?.delta
    if (delta?.content) yield { type: 'text', delta: delta.content }
    for (const part of delta?.tool_calls ?? []) {
      const call = calls[part.index] ?? { id: '', name: '', arguments: '' }
      calls[part.index] = call
      if (part.id) call.id = part.id
      if (part.function?.name) call.name += part.function.name
      if (part.function?.arguments) call.arguments += part.function.arguments
    }
  }
  const complete = calls.filter(Boolean)
  if (complete.length > 0) yield { type: 'tool_calls', calls: complete }
}

/**
 * Starts `source` now (its first `next`) rather than when it is first read, so its request runs
 * while the caller awaits other work. An error waits for the reader; one never read is dropped.
 */
export const startNow = <T>(source: AsyncIterable<T>): AsyncIterable<T> => {
  const iterator = source[Symbol.asyncIterator]()
  let first: Promise<IteratorResult<T>> | null = iterator.next()
  first.catch(() => undefined)
  return {
    // Methods, not arrow properties: see checkpoint.ts.
    [Symbol.asyncIterator]: () => ({
      next() {
        const next = first ?? iterator.next()
        first = null
        return next
      },
      async return(value?: unknown) {
        return (await iterator.return?.(value)) ?? { done: true, value }
      },
    }),
  }
}

/**
 * The model source of an organization's agent: the model's own provider (providers/registry.ts),
 * with the organization's key for that provider sent only to that provider's base URL, else the
 * platform's. The `offline` stand-in answers when no LLM is configured at all (never in
 * production: config refuses it). The same endpoint and key give the same function, so two plans
 * can be compared by it.
 */
export const completionSourceFor = async (
  ctx: AppContext,
  { organizationId, model }: { organizationId: string; model: string },
): Promise<StreamCompletion> => {
  if (model === 'offline' || !hasLlmProvider(ctx.config)) return streamOfflineReply
  return sourceFor(await resolveModelEndpoint(ctx, { organizationId, model }))
}
