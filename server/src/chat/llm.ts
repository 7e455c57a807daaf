import OpenAI from 'openai'
import type { AppContext } from '../context.ts'
import { readProviderKey } from '../orgs/provider-keys.ts'
import { llmFetch } from '../providers/llm-transport.ts'
import { streamOfflineReply } from './offline.ts'

export type LlmMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam
export type LlmTool = OpenAI.Chat.Completions.ChatCompletionFunctionTool
export type ToolCall = { id: string; name: string; arguments: string }

/** What one model round yields: text as it comes, then the round's tool calls and usage. */
export type LlmEvent =
  | { type: 'text'; delta: string }
  | { type: 'tool_calls'; calls: ToolCall[] }
  | { type: 'usage'; inputTokens: number; outputTokens: number }

export type CompletionRequest = {
  model: string
  messages: LlmMessage[]
  tools: LlmTool[]
  temperature: number
  signal: AbortSignal
}

export type StreamCompletion = (request: CompletionRequest) => AsyncIterable<LlmEvent>

/** One client, and the function streaming through it, per base URL and key. */
const sources = new Map<string, StreamCompletion>()

const sourceFor = ({ baseUrl, apiKey }: { baseUrl: string; apiKey: string }) => {
  const id = `${baseUrl}\n${apiKey}`
  let source = sources.get(id)
  if (!source) {
    // No client retries: a retried stream would repeat words the user has already seen.
    const client = new OpenAI({ baseURL: baseUrl, apiKey, maxRetries: 0, timeout: 60_000, fetch: llmFetch })
    source = (request) => streamFromProvider(client, request)
    sources.set(id, source)
  }
  return source
}

/** Streams one round through the `openai` client, joining tool-call argument fragments by index. */
const streamFromProvider = async function* (
  client: OpenAI,
  { model, messages, tools, temperature, signal }: CompletionRequest,
): AsyncIterable<LlmEvent> {
  const stream = await client.chat.completions.create(
    {
      model,
      messages,
      temperature,
      stream: true,
      stream_options: { include_usage: true },
      ...(tools.length > 0 ? { tools } : {}),
    },
    { signal },
  )
  const calls: ToolCall[] = []
  for await (const chunk of stream) {
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
    [Symbol.asyncIterator]: () => ({
      next: () => {
        const next = first ?? iterator.next()
        first = null
        return next
      },
      return: async (value?: unknown) => (await iterator.return?.(value)) ?? { done: true, value },
    }),
  }
}

/**
 * The model source of an organization's agent: the `offline` stand-in when no LLM is configured
 * (never in production: config refuses it), else LLM_BASE_URL with the platform key, or the
 * organization's own key when the model's provider is not one the platform pays for. The same
 * endpoint and key give the same function, so two plans can be compared by it.
 */
export const completionSourceFor = async (
  ctx: AppContext,
  { organizationId, model }: { organizationId: string; model: string },
): Promise<StreamCompletion> => {
  const { llm } = ctx.config
  if (!llm || model === 'offline') return streamOfflineReply
  const provider = ctx.catalogue.models.find((entry) => entry.id === model)?.provider
  const needsOwnKey = provider !== undefined && !ctx.catalogue.platformProviders.includes(provider)
  const ownKey = needsOwnKey ? await readProviderKey(ctx, { organizationId, provider }) : null
  return sourceFor({ baseUrl: llm.baseUrl, apiKey: ownKey ?? llm.apiKey ?? 'unused' })
}
