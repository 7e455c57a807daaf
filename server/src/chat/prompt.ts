import type { AgentRow } from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import { knowledgeInstruction, type Retrieval } from '../knowledge/index.ts'
import { recallMemory } from '../memory/index.ts'
import type { LlmMessage } from './llm.ts'
import type { ConversationRow, MessageRow } from './store.ts'

/** A stored message as the prompt sees it. */
export type Turn = Pick<MessageRow, 'role' | 'content'>

/** Room left for the conversation once the system prompt and the reply are accounted for. */
export const HISTORY_TOKEN_BUDGET = 8000
/** Messages read for the prompt, the user's new one included. */
export const HISTORY_ROWS = 200

/** About four characters a token for English text: good enough to bound a prompt, not to bill. */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4)

export const systemPromptFor = (agent: AgentRow, memory: string | null, knowledge: Retrieval | null = null) =>
  [
    agent.sysMsg ?? `You are ${agent.name}, a helpful assistant.`,
    memory ? `What you remember about this person from earlier conversations:\n${memory}` : null,
    knowledge ? knowledgeInstruction(knowledge) : null,
  ]
    .filter(Boolean)
    .join('\n\n')

/** Keeps the newest turns that fit the budget; the newest (the user's message) is always kept. */
export const fitHistory = <T extends { content: string }>(turns: T[], budget = HISTORY_TOKEN_BUDGET) => {
  const kept: T[] = []
  let used = 0
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i] as T
    used += estimateTokens(turn.content) + 4
    if (used > budget && kept.length > 0) break
    kept.unshift(turn)
  }
  return kept
}

/**
 * What this person's agent remembers from earlier sessions: the memory of the conversation's
 * memory identity (a proven user, or this browser's anonymous visitor), never of a claimed one;
 * null without an identity or memory.
 */
export const recallFor = (
  ctx: AppContext,
  conversation: Pick<ConversationRow, 'organizationId' | 'memoryIdentity'>,
) =>
  conversation.memoryIdentity
    ? recallMemory(ctx, {
        organizationId: conversation.organizationId,
        identity: conversation.memoryIdentity,
      })
    : Promise.resolve(null)

/**
 * The system prompt (agent + recalled memory) and the conversation so far, within the budget.
 * `turns` are the session's latest messages, oldest first, the user's new message last.
 */
export const composeMessages = ({
  agent,
  memory,
  turns,
  knowledge = null,
}: {
  agent: AgentRow
  memory: string | null
  turns: Turn[]
  /** Passages from the agent's knowledge sources for the user's new message. */
  knowledge?: Retrieval | null
}): LlmMessage[] => [
  { role: 'system', content: systemPromptFor(agent, memory, knowledge) },
  ...fitHistory(turns.filter((turn) => turn.content.trim() !== '')).map(
    (turn): LlmMessage => ({ role: turn.role, content: turn.content }),
  ),
]
