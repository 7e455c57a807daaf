import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base'
import { modelToEncodingMap } from 'gpt-tokenizer/mapping'
import type { AppContext } from '../context.ts'
import { priceReply } from './billing.ts'
import type { LlmMessage, LlmTool } from './llm.ts'

/**
 * What a model round can cost at most, known before it is sent: its prompt counted, its
 * completion capped by CHAT_MAX_REPLY_TOKENS (sent to the model as its max tokens), both priced
 * from the catalogue's prices (LLM_PRICES). A reply's hold covers that much before each round.
 *
 * Counting: an OpenAI model whose tokenizer is o200k_base (gpt-4o, gpt-4.1, o-series…) is counted
 * with that tokenizer (gpt-tokenizer). Any other model's tokenizer is not known here, so its count
 * is the text's UTF-8 bytes: a byte-level BPE (GPT, Llama 3, Qwen) or a SentencePiece tokenizer
 * with byte fallback (Gemini, Mistral) never makes more tokens than bytes, so that bound is safe
 * (about four times the real count for English text).
 */

/** OpenAI's chat framing: each message costs a few tokens around its content, the reply three. */
const TOKENS_PER_MESSAGE = 4
const TOKENS_PER_REPLY = 3
const TOKENS_PER_TOOL = 10

export type TokenCounter = (text: string) => number

const countBytes: TokenCounter = (text) => Buffer.byteLength(text, 'utf8')

/**
 * Counts of texts already counted: the conversation's turns are the same from one reply to the
 * next, so only the new ones cost a count. Oldest out first past the cap.
 */
const counted = new Map<string, number>()
const COUNTED_MAX = 5000
/** Texts shorter than this are counted again rather than kept. */
const COUNTED_MIN_LENGTH = 64

const countO200kCached: TokenCounter = (text) => {
  if (text.length < COUNTED_MIN_LENGTH) return countO200k(text)
  const known = counted.get(text)
  if (known !== undefined) return known
  const count = countO200k(text)
  if (counted.size >= COUNTED_MAX) counted.delete(counted.keys().next().value as string)
  counted.set(text, count)
  return count
}

/** The counter of a catalogue model: its own tokenizer when known, else the bytes bound. */
export const tokenCounterFor = (ctx: Pick<AppContext, 'catalogue'>, model: string): TokenCounter => {
  const entry = ctx.catalogue.models.find((each) => each.id === model)
  if (entry?.provider !== 'openai' || !entry.providerModel) return countBytes
  // gpt-tokenizer lists the older models with their encodings; every model it does not list
  // (gpt-4o, gpt-4.1, the o-series and later) uses o200k_base.
  const encoding =
    (modelToEncodingMap as Record<string, string | undefined>)[entry.providerModel] ?? 'o200k_base'
  return encoding === 'o200k_base' ? countO200kCached : countBytes
}

const textOf = (content: LlmMessage['content']): string => {
  if (typeof content === 'string') return content
  if (!content) return ''
  return content.map((part) => ('text' in part ? part.text : JSON.stringify(part))).join('')
}

/** The prompt tokens of one round: every message with its framing, and the tools offered. */
export const countPromptTokens = (
  ctx: Pick<AppContext, 'catalogue'>,
  { model, messages, tools }: { model: string; messages: LlmMessage[]; tools: LlmTool[] },
) => {
  const count = tokenCounterFor(ctx, model)
  let total = TOKENS_PER_REPLY
  for (const message of messages) {
    total += TOKENS_PER_MESSAGE + count(textOf(message.content))
    if (message.role === 'assistant' && message.tool_calls?.length)
      total += count(JSON.stringify(message.tool_calls))
  }
  for (const tool of tools) total += TOKENS_PER_TOOL + count(JSON.stringify(tool.function))
  return total
}

/** The output tokens of text a model streamed (what a crash left: its checkpointed text). */
export const countOutputTokens = (
  ctx: Pick<AppContext, 'catalogue'>,
  { model, text }: { model: string; text: string },
) => (text === '' ? 0 : tokenCounterFor(ctx, model)(text))

/** The most a round with this prompt can cost: the prompt and a completion of the cap. */
export const roundWorstCaseMicros = (
  ctx: Pick<AppContext, 'config'>,
  {
    model,
    promptTokens,
    maxTokens = ctx.config.chatMaxReplyTokens,
  }: { model: string; promptTokens: number; maxTokens?: number },
) => priceReply(ctx.config, { model, usage: { inputTokens: promptTokens, outputTokens: maxTokens } })
