import type { AgentRow } from '../agents/store.ts'
import type { AppContext } from '../context.ts'
import { recallMemory } from '../memory/service.ts'
import type { LlmMessage } from './llm.ts'
import type { ConversationRow } from './store.ts'
import * as store from './store.ts'

/** Room left for the conversation once the system prompt and the reply are accounted for. */
export const HISTORY_TOKEN_BUDGET = 8000
const HISTORY_ROWS = 200

/** About four characters a token for English text: good enough to bound a prompt, not to bill. */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4)

export const systemPromptFor = (agent: AgentRow, memory: string | null) =>
  [
    agent.sysMsg ?? `You are ${agent.name}, a helpful assistant.`,
    memory ? `What you remember about this person from earlier conversations:\n${memory}` : null,
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

/** The system prompt (agent + recalled memory) and the conversation so far, within the budget. */
export const buildPrompt = async (
  ctx: AppContext,
  { conversation, agent }: { conversation: ConversationRow; agent: AgentRow },
): Promise<{ system: string; history: LlmMessage[] }> => {
  const memory = conversation.userIdentifier
    ? await recallMemory(ctx, {
        organizationId: conversation.organizationId,
        identity: conversation.userIdentifier,
      })
    : null
  const rows = await store.recentMessages(ctx.db, { conversationId: conversation.id, limit: HISTORY_ROWS })
  const history = fitHistory(rows.filter((row) => row.content.trim() !== '')).map(
    (row): LlmMessage => ({ role: row.role, content: row.content }),
  )
  return { system: systemPromptFor(agent, memory), history }
}
