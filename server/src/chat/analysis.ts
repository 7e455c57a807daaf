import { z } from 'zod'
import * as agentStore from '../agents/store.ts'
import type { AppContext } from '../context.ts'
import { hasLlmProvider } from '../providers/registry.ts'
import { type Analysis, isAnalyzed, saveAnalysis } from './analysis-store.ts'
import { chargeReply, priceReply } from './billing.ts'
import { completionSourceFor } from './llm.ts'
import { estimateTokens } from './prompt.ts'
import * as store from './store.ts'

export const CHAT_ANALYSIS_JOB = 'chat.analyze'
const TRANSCRIPT_ROWS = 500
const ANALYSIS_TIMEOUT_MS = 60_000

const INSTRUCTIONS = `You review a finished conversation between a user and an assistant.
Answer with one JSON object and nothing else:
{"summary": "<two or three sentences>", "sentiment": "positive" | "neutral" | "negative", "outcome": "<what the conversation achieved, a few words>"}
sentiment is the user's overall mood.`

const ZAnalysis = z.object({
  summary: z.string().trim().min(1).max(4000),
  sentiment: z.enum(['positive', 'neutral', 'negative']),
  outcome: z.string().trim().min(1).max(500),
})

/** The JSON object in a model's answer, which may wrap it in prose or a code fence. */
const parseAnalysis = (text: string): Analysis => {
  const start = text.indexOf('{')
  const end = text.lastIndexOf('}')
  const parsed = ZAnalysis.safeParse(start >= 0 && end > start ? safeJson(text.slice(start, end + 1)) : null)
  if (!parsed.success)
    throw new Error(`the model's analysis is not the JSON asked for: ${text.slice(0, 200)}`)
  return parsed.data
}

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

/** Without a language model the analysis says so instead of pretending. */
const offlineAnalysis = (transcript: { role: string }[]): Analysis => ({
  summary: `[Offline analysis] ${transcript.length} messages (${transcript.filter((m) => m.role === 'user').length} from the user). No language model is configured, so no real summary was written.`,
  sentiment: 'neutral',
  outcome: 'unknown (offline model)',
})

/**
 * Post-call analysis (the agenda job of an ended session whose agent asks for it): the agent's
 * model reads the transcript and writes a summary, sentiment and outcome onto the conversation.
 * Its tokens are debited like a reply's, after the session's own totals were closed.
 */
export const analyzeConversation = async (ctx: AppContext, conversationId: string) => {
  const conversation = await store.findConversation(ctx.db, conversationId)
  if (!conversation || (await isAnalyzed(ctx.db, conversationId))) return
  const agent = await agentStore.findAgent(ctx.db, {
    organizationId: conversation.organizationId,
    id: conversation.agentId,
  })
  const model = agent?.model ?? 'offline'
  const transcript = await store.listMessages(ctx.db, { conversationId, limit: TRANSCRIPT_ROWS, offset: 0 })
  if (model === 'offline' || !hasLlmProvider(ctx.config)) {
    await saveAnalysis(ctx.db, { id: conversationId, analysis: offlineAnalysis(transcript) })
    return
  }

  const complete = await completionSourceFor(ctx, { organizationId: conversation.organizationId, model })
  const transcriptText = transcript.map((m) => `${m.role}: ${m.content}`).join('\n')
  let answer = ''
  let usage = { inputTokens: estimateTokens(INSTRUCTIONS + transcriptText), outputTokens: 0 }
  for await (const event of complete({
    model,
    messages: [
      { role: 'system', content: INSTRUCTIONS },
      { role: 'user', content: transcriptText },
    ],
    tools: [],
    temperature: 0,
    signal: AbortSignal.timeout(ANALYSIS_TIMEOUT_MS),
  })) {
    if (event.type === 'text') answer += event.delta
    else if (event.type === 'usage') usage = event
  }
  await chargeReply(ctx, {
    organizationId: conversation.organizationId,
    conversationId,
    costMicros: priceReply(ctx.config, { model, usage }),
    reason: 'Chat post-call analysis',
  })
  await saveAnalysis(ctx.db, { id: conversationId, analysis: parseAnalysis(answer) })
}

export const registerAnalysisJob = (ctx: AppContext) => {
  ctx.jobs.define<{ conversationId: string }>(CHAT_ANALYSIS_JOB, ({ conversationId }) =>
    analyzeConversation(ctx, conversationId),
  )
}
