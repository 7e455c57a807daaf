import type { VersionFunction } from '@parley/shared'
import type { AgentRow } from '../agents/index.ts'
import { auditBySystem } from '../audit/index.ts'
import { placeHold, releaseHold, settleHold } from '../billing/index.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import { retrieveForReply } from '../knowledge/index.ts'
import { CHAT_CREDITS_MESSAGE, priceReply, replyCharge } from './billing.ts'
import { completionSourceFor, type LlmMessage } from './llm.ts'
import { composePlan, readPlanParts, startPlan } from './plan.ts'
import type { Turn } from './prompt.ts'
import { type NextRound, type ReplyOutcome, runReply } from './reply.ts'
import { countOutputTokens, countPromptTokens, roundWorstCaseMicros } from './reply-cost.ts'
import type { Toolset } from './tools.ts'

/**
 * Replies without a conversation, for agent tests: the chat's own reply engine (the plan, the
 * model rounds, tools, handoffs, end_call, the fallback model) on an agent as a version has it,
 * each round paid for before it is sent and the whole charged to the ledger like a chat reply.
 * Nothing is streamed and nothing is stored in a conversation; the caller keeps the transcript.
 */

/** A hold lives this long when the instance running the test dies; it then expires, unpaid. */
const SIMULATION_HOLD_MS = 10 * 60 * 1000

/** How a test answers a custom function the agent called: `runReal` calls its real endpoint. */
export type AnswerFunction = (call: {
  name: string
  args: unknown
  runReal: () => Promise<string>
}) => Promise<string>

export type SimulatedReply = Pick<
  ReplyOutcome,
  'text' | 'endSession' | 'toolCalls' | 'costMicros' | 'error' | 'status' | 'model'
> & { agentId: string }

/** Holds for a reply's rounds, one each (none records a round: nothing is left to recover). */
const holdsFor = (
  ctx: AppContext,
  { organizationId, reference }: { organizationId: string; reference: string },
) => {
  const ids: string[] = []
  const cover = async (round: Pick<NextRound, 'model' | 'messages' | 'tools'>) => {
    const promptTokens = countPromptTokens(ctx, round)
    const id = await placeHold(ctx, {
      organizationId,
      amountMicros: roundWorstCaseMicros(ctx, { model: round.model, promptTokens }),
      kind: 'reply',
      reference,
      ttlMs: SIMULATION_HOLD_MS,
      minBalanceMicros: ctx.config.chatMinBalanceMicros,
    })
    if (id) ids.push(id)
    return id !== null
  }
  /** The first hold takes the whole charge; the others are freed. */
  const settle = async ({ costMicros, reason }: { costMicros: number; reason: string }) => {
    const [first, ...rest] = ids
    if (first)
      await ctx.db.transaction().execute((tx) =>
        settleHold(ctx, tx, {
          id: first,
          charge: replyCharge({ organizationId, conversationId: reference, costMicros, reason }),
        }),
      )
    for (const id of rest) await releaseHold(ctx, id)
  }
  return { cover, settle }
}

/**
 * The agent's reply to `turns` (the visitor's last), as the chat path makes it. Custom functions
 * are answered by `answerFunction`; a handoff moves to the target's published settings, its
 * functions answered the same way. `reference` names the ledger entry (the test run).
 */
export const runSimulatedReply = async (
  ctx: AppContext,
  {
    organizationId,
    agent,
    turns,
    reference,
    answerFunction,
    signal,
    versionFunctions = null,
  }: {
    organizationId: string
    agent: AgentRow
    /** The version's own custom function definitions; null (the draft): the current ones. */
    versionFunctions?: VersionFunction[] | null
    turns: Turn[]
    reference: string
    answerFunction: AnswerFunction
    signal: AbortSignal
  },
): Promise<SimulatedReply> => {
  const wrapToolset = (toolset: Toolset): Toolset => ({
    tools: toolset.tools,
    actionFor: (call) => {
      const action = toolset.actionFor(call)
      if (action?.kind !== 'function') return action
      return {
        ...action,
        run: (args) => answerFunction({ name: action.name, args, runReal: () => action.run(args) }),
      }
    },
  })
  const lastVisitorTurn = turns.findLast((turn) => turn.role === 'user')?.content ?? ''
  const [parts, knowledge] = await Promise.all([
    readPlanParts(ctx, { conversation: { organizationId, memoryIdentity: null }, agent, versionFunctions }),
    retrieveForReply(ctx, {
      organizationId: agent.organizationId,
      sourceIds: agent.knowledgeSourceIds,
      message: lastVisitorTurn,
    }),
  ])
  const plan = composePlan({
    agent,
    turns,
    maxTokens: ctx.config.chatMaxReplyTokens,
    knowledge,
    ...parts,
    toolset: wrapToolset(parts.toolset),
  })
  const holds = holdsFor(ctx, { organizationId, reference })
  if (!(await holds.cover(plan.request))) throw AppError.paymentRequired(CHAT_CREDITS_MESSAGE)
  let outcome: ReplyOutcome | null = null
  try {
    outcome = await runReply({
      ctx,
      conversation: { id: reference, organizationId },
      prepared: startPlan(plan, signal),
      emit: () => undefined,
      signal,
      coverRound: holds.cover,
      simulation: { wrapToolset },
      // A simulated opt_out lists nothing; an agent test runs as a job.
      by: auditBySystem,
    })
  } finally {
    await holds.settle({ costMicros: outcome?.costMicros ?? 0, reason: 'Agent test reply' })
  }
  return {
    text: outcome.text,
    endSession: outcome.endSession,
    toolCalls: outcome.toolCalls,
    costMicros: outcome.costMicros,
    error: outcome.error,
    status: outcome.status,
    model: outcome.model,
    agentId: outcome.agent.id,
  }
}

/**
 * One completion without tools (an agent test's simulated visitor or its judge), paid like a
 * reply: its worst case held first (402 when the credits do not cover it), its real cost charged.
 */
export const completeForTest = async (
  ctx: AppContext,
  {
    organizationId,
    model,
    messages,
    reference,
    reason,
    signal,
  }: {
    organizationId: string
    model: string
    messages: LlmMessage[]
    reference: string
    reason: string
    signal: AbortSignal
  },
): Promise<{ text: string; costMicros: number }> => {
  const holds = holdsFor(ctx, { organizationId, reference })
  if (!(await holds.cover({ model, messages, tools: [] })))
    throw AppError.paymentRequired(CHAT_CREDITS_MESSAGE)
  let text = ''
  let usage: { inputTokens: number; outputTokens: number } | null = null
  let costMicros = 0
  try {
    const complete = await completionSourceFor(ctx, { organizationId, model })
    for await (const event of complete({
      model,
      messages,
      tools: [],
      temperature: 0,
      maxTokens: ctx.config.chatMaxReplyTokens,
      signal,
    })) {
      if (event.type === 'text') text += event.delta
      else if (event.type === 'usage') usage = event
    }
  } finally {
    usage ??= {
      inputTokens: text === '' ? 0 : countPromptTokens(ctx, { model, messages, tools: [] }),
      outputTokens: countOutputTokens(ctx, { model, text }),
    }
    costMicros = priceReply(ctx.config, { model, usage })
    await holds.settle({ costMicros, reason })
  }
  return { text, costMicros }
}
