import { getBalanceMicros, type UsageChange } from '../billing/index.ts'
import type { Config } from '../config.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'

export const CHAT_CREDITS_MESSAGE = 'Insufficient credits: add credits to continue chatting'

export type TokenUsage = { inputTokens: number; outputTokens: number }

/**
 * Refuses (402) when the balance is below the configured minimum; a billing store that cannot
 * answer is the spec's 503, never a free pass.
 */
export const assertCredits = async (
  ctx: AppContext,
  organizationId: string,
  message = CHAT_CREDITS_MESSAGE,
) => {
  let balance: number
  try {
    balance = await getBalanceMicros(ctx.db, organizationId)
  } catch (error) {
    if (error instanceof AppError) throw error
    throw AppError.unavailable('Billing service unavailable', error)
  }
  assertBalance(ctx, balance, message)
}

/** The credits rule on a balance already read (402 below the configured minimum). */
export const assertBalance = (ctx: AppContext, balanceMicros: number, message = CHAT_CREDITS_MESSAGE) => {
  if (balanceMicros < ctx.config.chatMinBalanceMicros || balanceMicros <= 0)
    throw AppError.paymentRequired(message)
}

/** Micro-USD for one reply, rounded up so many small replies never add up to free usage. */
export const priceReply = (
  config: Pick<Config, 'llmPrices'>,
  { model, usage }: { model: string; usage: TokenUsage },
) => {
  const price = config.llmPrices[model] ?? config.llmPrices.default
  if (!price) return 0
  const microsTimesMillion =
    usage.inputTokens * price.inputUsdPerMillion * 1_000_000 +
    usage.outputTokens * price.outputUsdPerMillion * 1_000_000
  return Math.ceil(Math.round(microsTimesMillion) / 1_000_000)
}

/** A reply's (or an analysis's) real cost as the usage debit that settles its hold. */
export const replyCharge = ({
  organizationId,
  conversationId,
  costMicros,
  reason = 'Chat reply',
}: {
  organizationId: string
  conversationId: string
  costMicros: number
  reason?: string
}): UsageChange => ({ organizationId, amountMicros: costMicros, reason, reference: conversationId })
