import type { VersionFunction } from '@parley/shared'
import type { AgentRow } from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import type { Retrieval } from '../knowledge/index.ts'
import {
  type CompletionRequest,
  completionSourceFor,
  type LlmEvent,
  type StreamCompletion,
  startNow,
} from './llm.ts'
import { composeMessages, recallFor, type Turn } from './prompt.ts'
import type { ConversationRow } from './store.ts'
import { buildToolset, type Toolset } from './tools.ts'

/** What a reply's first model round is made of, and the request it makes. */
export type ReplyPlan = {
  agent: AgentRow
  memory: string | null
  /** The session's latest messages, oldest first, the user's new one last. */
  turns: Turn[]
  toolset: Toolset
  source: StreamCompletion
  /** Passages from the agent's knowledge sources for the new message; null without any. */
  knowledge: Retrieval | null
  request: Omit<CompletionRequest, 'signal'>
}

/** The parts of a plan that cost reads: recalled memory, tools, the model source. */
export type PlanParts = Pick<ReplyPlan, 'memory' | 'toolset' | 'source'>

/** Recalls memory, builds the tools and picks the model source; each read is skipped when there is none to make. */
export const readPlanParts = async (
  ctx: AppContext,
  {
    conversation,
    agent,
    versionFunctions = null,
  }: {
    conversation: Pick<ConversationRow, 'organizationId' | 'memoryIdentity'>
    agent: AgentRow
    /** A numbered version's own function definitions (agent tests); null: the current ones. */
    versionFunctions?: VersionFunction[] | null
  },
): Promise<PlanParts> => {
  const [memory, toolset, source] = await Promise.all([
    recallFor(ctx, conversation),
    buildToolset(ctx, agent, conversation.organizationId, versionFunctions),
    completionSourceFor(ctx, {
      organizationId: conversation.organizationId,
      model: agent.model ?? 'offline',
    }),
  ])
  return { memory, toolset, source }
}

/** The plan from its parts: no reads, so a plan can be composed again from what a reply left. */
export const composePlan = ({
  agent,
  turns,
  memory,
  toolset,
  source,
  maxTokens,
  knowledge = null,
}: PlanParts & {
  agent: AgentRow
  turns: Turn[]
  maxTokens: number
  knowledge?: Retrieval | null
}): ReplyPlan => ({
  agent,
  memory,
  turns,
  toolset,
  source,
  knowledge,
  request: {
    model: agent.model ?? 'offline',
    messages: composeMessages({ agent, memory, turns, knowledge }),
    tools: toolset.tools,
    temperature: agent.temperature,
    maxTokens,
  },
})

/** Two plans that would send the model the very same request through the same endpoint and key. */
export const isSamePlan = (a: ReplyPlan, b: ReplyPlan) =>
  a.source === b.source && JSON.stringify(a.request) === JSON.stringify(b.request)

/** A reply ready to stream: its plan, and its first model round already under way. */
export type PreparedReply = ReplyPlan & { firstRound: AsyncIterable<LlmEvent> }

/** Starts the plan's first model round now; aborting `signal` cancels the upstream request. */
export const startPlan = (plan: ReplyPlan, signal: AbortSignal): PreparedReply => ({
  ...plan,
  // The reply loop adds tool turns to its messages: the plan's own stay as they were compared.
  request: { ...plan.request, messages: [...plan.request.messages] },
  firstRound: startNow(plan.source({ ...plan.request, signal })),
})
