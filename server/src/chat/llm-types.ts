import type OpenAI from 'openai'

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
  /** The completion cap: sent to the model, so the round's hold covers its worst case. */
  maxTokens: number
  signal: AbortSignal
}

export type StreamCompletion = (request: CompletionRequest) => AsyncIterable<LlmEvent>
