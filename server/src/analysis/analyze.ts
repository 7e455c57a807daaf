import { checkArguments } from '@parley/platform'
import { z } from 'zod'
import type { AgentRow } from '../agents/index.ts'
import { placeHold, releaseHold, settleHold } from '../billing/index.ts'
import {
  completionSourceFor,
  countOutputTokens,
  countPromptTokens,
  type LlmMessage,
  priceReply,
  replyCharge,
  roundWorstCaseMicros,
} from '../chat/index.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../http/app-error.ts'
import { hasLlmProvider } from '../providers/registry.ts'
import type { Analysis, Subject } from './store.ts'

const ANALYSIS_TIMEOUT_MS = 60_000

const instructionsFor = (
  schema: Record<string, unknown> | null,
) => `You review a finished conversation between a user and an assistant (typed, spoken, or both).
Answer with one JSON object and nothing else:
{"summary": "<two or three sentences>", "sentiment": "positive" | "neutral" | "negative", "outcome": "<what the conversation achieved, a few words>"${schema ? ', "data": <an object valid against the JSON Schema below, filled from the conversation>' : ''}}
sentiment is the user's overall mood.${schema ? `\nJSON Schema of data:\n${JSON.stringify(schema)}` : ''}`

const ZAnswer = z.object({
  summary: z.string().trim().min(1).max(4000),
  sentiment: z.enum(['positive', 'neutral', 'negative']),
  outcome: z.string().trim().min(1).max(500),
  data: z.unknown().optional(),
})

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

/**
 * The JSON object in a model's answer (which may wrap it in prose or a code fence). The schema's
 * values are kept only when they are valid against it: a wrong answer is not passed on as data.
 */
const parseAnswer = (
  ctx: AppContext,
  { text, schema, subject }: { text: string; schema: Record<string, unknown> | null; subject: Subject },
): Analysis => {
  const start = text.indexOf('{')
  const end = text.lastIndexOf('}')
  const parsed = ZAnswer.safeParse(start >= 0 && end > start ? safeJson(text.slice(start, end + 1)) : null)
  if (!parsed.success)
    throw new Error(`the model's analysis is not the JSON asked for: ${text.slice(0, 200)}`)
  const { data: values, ...analysis } = parsed.data
  if (!schema) return { ...analysis, data: null }
  const checked = checkArguments({ schema, args: values ?? {}, dataVar: 'data' })
  if (!checked.ok)
    ctx.logger.warn(
      { ...subject, problem: checked.error },
      "the model's analysis data does not fit the agent's schema",
    )
  return { ...analysis, data: checked.ok ? checked.args : null }
}

/**
 * A text chat whose agent runs on the development stand-in (`offline`, no model configured): the
 * analysis says so instead of pretending. Calls never get it: they are analysed by a real model or
 * not at all (the call says why).
 */
const offlineAnalysis = (transcript: { role: string }[]): Analysis => ({
  summary: `[Offline analysis] ${transcript.length} messages (${transcript.filter((m) => m.role === 'user').length} from the user). No language model is configured, so no real summary was written.`,
  sentiment: 'neutral',
  outcome: 'unknown (offline model)',
  data: null,
})

/** An analysis written, or why none could be: no model, no provider, no credits, a failed request. */
export type AnalysisResult = { analysis: Analysis } | { skipped: string }

type AnalysedAgent = Pick<AgentRow, 'model' | 'analysisSchema' | 'agentArchitecture' | 'analysisModel'>

/**
 * The text model that analyses an agent's sessions: its own model, or for a realtime agent (whose
 * speech-to-speech model writes no text) its `analysisModel`, the catalogue's default without one.
 */
export const analysisModelOf = (ctx: Pick<AppContext, 'catalogue'>, agent: AnalysedAgent) =>
  agent.agentArchitecture === 'realtime' ? (agent.analysisModel ?? ctx.catalogue.defaults.model) : agent.model

const whyNotAnalysed = (error: unknown) => {
  const message = error instanceof Error ? error.message : String(error)
  return `the analysis model failed: ${message}`.slice(0, 500)
}

/**
 * Post-call analysis of a transcript by a real model (analysisModelOf): summary, sentiment,
 * outcome, and the values of the agent's analysis schema. Paid like a reply: a hold of its worst
 * case (the prompt counted, the answer at CHAT_MAX_REPLY_TOKENS) before the model is asked, the
 * real token cost charged whole when it settles the hold. Where no model can run it (none
 * configured, the provider unusable or failing, no credits) the result says why instead.
 */
export const analyzeTranscript = async (
  ctx: AppContext,
  {
    subject,
    organizationId,
    agent,
    transcript,
  }: {
    subject: Subject
    organizationId: string
    agent: AnalysedAgent | undefined
    transcript: Array<{ role: string; content: string }>
  },
): Promise<AnalysisResult> => {
  if (!agent) return { skipped: 'the agent no longer exists' }
  const model = analysisModelOf(ctx, agent)
  const isStandIn = model === null || model === 'offline' || !hasLlmProvider(ctx.config)
  if (isStandIn && subject.kind === 'conversation') return { analysis: offlineAnalysis(transcript) }
  if (model === null || model === 'offline')
    return { skipped: 'the agent has no text model that can write an analysis (offline stand-in)' }
  if (!hasLlmProvider(ctx.config))
    return { skipped: 'no language model provider is configured on this deployment' }

  const schema = agent.analysisSchema ?? null
  const instructions = instructionsFor(schema)
  const transcriptText = transcript.map((m) => `${m.role}: ${m.content}`).join('\n')
  const messages: LlmMessage[] = [
    { role: 'system', content: instructions },
    { role: 'user', content: transcriptText },
  ]
  let complete: Awaited<ReturnType<typeof completionSourceFor>>
  try {
    complete = await completionSourceFor(ctx, { organizationId, model })
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    return { skipped: `${model} cannot be used: ${error.message}`.slice(0, 500) }
  }
  const promptTokens = countPromptTokens(ctx, { model, messages, tools: [] })
  const hold = await placeHold(ctx, {
    organizationId,
    amountMicros: roundWorstCaseMicros(ctx, { model, promptTokens }),
    kind: 'reply',
    reference: subject.id,
    ttlMs: ANALYSIS_TIMEOUT_MS * 2,
  })
  if (!hold) {
    ctx.logger.warn({ ...subject, organizationId }, 'post-call analysis skipped: the credits do not cover it')
    return { skipped: 'the credits do not cover the analysis' }
  }
  let answer = ''
  let usage = { inputTokens: promptTokens, outputTokens: 0 }
  let isReported = false
  try {
    for await (const event of complete({
      model,
      messages,
      tools: [],
      temperature: 0,
      maxTokens: ctx.config.chatMaxReplyTokens,
      signal: AbortSignal.timeout(ANALYSIS_TIMEOUT_MS),
    })) {
      if (event.type === 'text') answer += event.delta
      else if (event.type === 'usage') {
        usage = event
        isReported = true
      }
    }
  } catch (error) {
    ctx.logger.warn({ ...subject, err: error, model }, 'post-call analysis failed: its model did not answer')
    return { skipped: whyNotAnalysed(error) }
  } finally {
    // A request the provider refused before answering cost nothing; one cut off did (its prompt
    // and the text received, counted).
    if (isReported || answer !== '') {
      if (!isReported)
        usage = { inputTokens: promptTokens, outputTokens: countOutputTokens(ctx, { model, text: answer }) }
      const costMicros = priceReply(ctx.config, { model, usage })
      await ctx.db.transaction().execute((tx) =>
        settleHold(ctx, tx, {
          id: hold,
          charge: replyCharge({
            organizationId,
            conversationId: subject.id,
            costMicros,
            reason: subject.kind === 'call' ? 'Call post-call analysis' : 'Chat post-call analysis',
          }),
        }),
      )
    } else await releaseHold(ctx, hold)
  }
  try {
    return { analysis: parseAnswer(ctx, { text: answer, schema, subject }) }
  } catch (error) {
    return { skipped: whyNotAnalysed(error) }
  }
}
