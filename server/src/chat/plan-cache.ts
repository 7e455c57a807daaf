import type { AgentRow } from '../agents/index.ts'
import type { AppContext } from '../context.ts'
import { composePlan, type PlanParts, type ReplyPlan } from './plan.ts'
import { HISTORY_ROWS, type Turn } from './prompt.ts'

/** What a conversation's last reply on this instance left: the next reply's plan, but for its message. */
type Remembered = PlanParts & { agent: AgentRow; turns: Turn[]; characters: number; savedAt: number }

/** Text kept across all entries (a code unit is two bytes), so long conversations cannot grow it unbounded. */
const MAX_CHARACTERS = 16 * 1024 * 1024

type PlanCache = { entries: Map<string, Remembered>; characters: number }

const caches = new WeakMap<AppContext, PlanCache>()

const cacheOf = (ctx: AppContext) => {
  let cache = caches.get(ctx)
  if (!cache) {
    cache = { entries: new Map(), characters: 0 }
    caches.set(ctx, cache)
  }
  return cache
}

const remove = (cache: PlanCache, conversationId: string) => {
  const entry = cache.entries.get(conversationId)
  if (!entry) return
  cache.entries.delete(conversationId)
  cache.characters -= entry.characters
}

/**
 * Keeps what a conversation's next reply will most likely be planned from: its agent, memory,
 * tools, model source and its latest messages as stored (the newest HISTORY_ROWS − 1, as the
 * claim reads them). The least recently used entries go first when the cache is full.
 */
export const rememberPlan = (
  ctx: AppContext,
  {
    conversationId,
    agent,
    turns,
    parts,
  }: { conversationId: string; agent: AgentRow; turns: Turn[]; parts: PlanParts },
) => {
  const cache = cacheOf(ctx)
  remove(cache, conversationId)
  const { chatPlanCacheEntries } = ctx.config
  if (chatPlanCacheEntries === 0) return
  const kept = turns.slice(-(HISTORY_ROWS - 1))
  const characters = kept.reduce((sum, turn) => sum + turn.content.length, 0) + (agent.sysMsg?.length ?? 0)
  cache.entries.set(conversationId, { ...parts, agent, turns: kept, characters, savedAt: Date.now() })
  cache.characters += characters
  for (const oldest of cache.entries.keys()) {
    if (cache.entries.size <= chatPlanCacheEntries && cache.characters <= MAX_CHARACTERS) break
    remove(cache, oldest)
  }
}

export const forgetPlan = (ctx: AppContext, conversationId: string) => remove(cacheOf(ctx), conversationId)

/**
 * The plan the conversation's next reply would have if nothing changed since its last reply here,
 * with `message` as the user's new turn; null when this instance has not seen the conversation
 * lately. Only a guess: the reply's claim reads what is true, and a plan that differs replaces it.
 */
export const predictPlan = (
  ctx: AppContext,
  { conversationId, message }: { conversationId: string; message: string },
): ReplyPlan | null => {
  const cache = cacheOf(ctx)
  const entry = cache.entries.get(conversationId)
  if (!entry) return null
  // An agent with knowledge sources is given passages for each message: only the claim can read them.
  if (entry.agent.knowledgeSourceIds.length > 0) return null
  // Older than the idle limit: the session has expired, and the claim will say so.
  if (Date.now() - entry.savedAt > ctx.config.chatIdleTimeoutMs) {
    remove(cache, conversationId)
    return null
  }
  // Most recently used last: the next eviction takes the others first.
  cache.entries.delete(conversationId)
  cache.entries.set(conversationId, entry)
  const { agent, turns, memory, toolset, source } = entry
  return composePlan({
    agent,
    memory,
    toolset,
    source,
    turns: [...turns, { role: 'user', content: message }],
    maxTokens: ctx.config.chatMaxReplyTokens,
  })
}
