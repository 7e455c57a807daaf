import type { AppContext } from '../context.ts'
import * as store from './store.ts'

export type TranscriptLine = { role: 'user' | 'assistant'; content: string }
type Identity = { organizationId: string; identity: string }

/** The spec's limit on memory ingestion. */
export const MEMORY_INGEST_TIMEOUT_MS = 25_000
const RECALL_TIMEOUT_MS = 3000
// A summary is prompt text: keep it small enough never to crowd out the conversation.
const SUMMARY_MAX_CHARS = 2000

/**
 * Keeps the newest lines of the last conversations, newest last, within the size cap. Plain text
 * rather than an LLM summary: it costs nothing and cannot invent facts about the person.
 */
const summarize = (previous: string | undefined, transcript: TranscriptLine[]) => {
  const lines = transcript.map(
    (line) => `${line.role === 'user' ? 'User' : 'Agent'}: ${line.content.replace(/\s+/g, ' ')}`,
  )
  const text = [previous, `Conversation of ${new Date().toISOString().slice(0, 10)}:`, ...lines]
    .filter(Boolean)
    .join('\n')
  return text.length > SUMMARY_MAX_CHARS ? text.slice(text.length - SUMMARY_MAX_CHARS) : text
}

/** The MEMORY_URL adapter: POST {url}/ingest and POST {url}/recall, JSON both ways. */
const callMemoryService = async (url: string, path: string, body: unknown, timeoutMs: number) => {
  const response = await fetch(new URL(path, url.endsWith('/') ? url : `${url}/`), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  })
  if (!response.ok) throw new Error(`memory service answered ${response.status}`)
  return (await response.json()) as unknown
}

/** What the agent remembers of this person, for the system prompt; null when nothing (or on failure). */
export const recallMemory = async (ctx: AppContext, { organizationId, identity }: Identity) => {
  try {
    if (ctx.config.memoryUrl) {
      const answer = await callMemoryService(
        ctx.config.memoryUrl,
        'recall',
        { organizationId, identity },
        RECALL_TIMEOUT_MS,
      )
      const memory = (answer as { memory?: unknown })?.memory
      return typeof memory === 'string' && memory.trim() ? memory : null
    }
    return (await store.findSummary(ctx.db, { organizationId, identity })) ?? null
  } catch (error) {
    ctx.logger.warn({ err: error }, 'memory recall failed; continuing without memory')
    return null
  }
}

/** Fire-and-forget: failures and time-outs are logged, never raised to the caller. */
export const ingestMemory = (
  ctx: AppContext,
  { organizationId, identity, transcript }: Identity & { transcript: TranscriptLine[] },
) => {
  if (transcript.length === 0) return
  const work = async () => {
    if (ctx.config.memoryUrl) {
      await callMemoryService(
        ctx.config.memoryUrl,
        'ingest',
        { organizationId, identity, transcript },
        MEMORY_INGEST_TIMEOUT_MS,
      )
      return
    }
    const previous = await store.findSummary(ctx.db, { organizationId, identity })
    await store.saveSummary(ctx.db, { organizationId, identity, summary: summarize(previous, transcript) })
  }
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error('memory ingestion timed out')), MEMORY_INGEST_TIMEOUT_MS).unref(),
  )
  Promise.race([work(), timeout]).catch((error: unknown) => {
    ctx.logger.warn({ err: error }, 'memory ingestion failed')
  })
}
