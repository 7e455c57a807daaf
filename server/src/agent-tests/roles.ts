import type { ExpectationVerdict, TestExpectation, TranscriptTurn } from '@parley/shared'
import { z } from 'zod'
import { completeForTest } from '../chat/index.ts'
import type { AppContext } from '../context.ts'

/**
 * The two parts a model plays in an agent test besides the agent: the simulated visitor (a
 * persona with a goal) and the judge of criteria. Both are paid like chat replies.
 */

/** What the visitor model answers when its goal is reached or it has nothing more to say. */
export const VISITOR_DONE = '[DONE]'

type Billing = { organizationId: string; reference: string; signal: AbortSignal }

const visitorInstructions = ({ persona, goal }: { persona: string; goal: string }) =>
  `You play a visitor writing to a company's assistant in a chat, to test the assistant.
Persona: ${persona}
Goal: ${goal}
Write only the visitor's next message: short, in the visitor's own words, never as the assistant.
When the goal is reached, or the assistant cannot help further, answer exactly ${VISITOR_DONE}.`

/**
 * The visitor's next message, or null when it is done. The conversation is shown to the visitor
 * model from its side: the agent's replies as the user's turns, its own as the assistant's.
 */
export const nextVisitorTurn = async (
  ctx: AppContext,
  {
    persona,
    goal,
    model,
    transcript,
    ...billing
  }: Billing & { persona: string; goal: string; model: string; transcript: TranscriptTurn[] },
) => {
  const said = transcript.filter((turn) => turn.role !== 'tool')
  const { text, costMicros } = await completeForTest(ctx, {
    ...billing,
    model,
    reason: 'Agent test visitor',
    messages: [
      { role: 'system', content: visitorInstructions({ persona, goal }) },
      ...(said[0]?.role === 'agent' || said.length === 0
        ? [{ role: 'user' as const, content: '(The chat opens. Write your first message.)' }]
        : []),
      ...said.map((turn) => ({
        role: turn.role === 'visitor' ? ('assistant' as const) : ('user' as const),
        content: turn.content,
      })),
    ],
  })
  const message = text.trim()
  return { message: message === '' || message.includes(VISITOR_DONE) ? null : message, costMicros }
}

const ZVerdict = z.object({ passed: z.boolean(), reason: z.string().trim().min(1).max(2000) })

const judgeInstructions = `You judge a test conversation between a visitor and a company's assistant.
Decide whether the assistant meets the criterion given. Answer with one JSON object and nothing else:
{"passed": true or false, "reason": "<one or two sentences saying why>"}`

const transcriptText = (transcript: TranscriptTurn[]) =>
  transcript
    .map((turn) =>
      turn.role === 'tool'
        ? `[the assistant called ${turn.name} with ${JSON.stringify(turn.arguments ?? {})}]`
        : `${turn.role === 'visitor' ? 'Visitor' : 'Assistant'}: ${turn.content}`,
    )
    .join('\n')

const parseVerdict = (text: string) => {
  const start = text.indexOf('{')
  const end = text.lastIndexOf('}')
  try {
    return ZVerdict.safeParse(start >= 0 && end > start ? JSON.parse(text.slice(start, end + 1)) : null)
  } catch {
    return ZVerdict.safeParse(null)
  }
}

/** The judge's verdict on one criterion; an answer that is not the JSON asked for fails, saying so. */
export const judgeCriterion = async (
  ctx: AppContext,
  {
    expectation,
    model,
    transcript,
    ...billing
  }: Billing & {
    expectation: Extract<TestExpectation, { type: 'judge' }>
    model: string
    transcript: TranscriptTurn[]
  },
): Promise<{ verdict: ExpectationVerdict; costMicros: number }> => {
  const { text, costMicros } = await completeForTest(ctx, {
    ...billing,
    model,
    reason: 'Agent test judge',
    messages: [
      { role: 'system', content: judgeInstructions },
      {
        role: 'user',
        content: `Criterion: ${expectation.criterion}\n\nConversation:\n${transcriptText(transcript)}`,
      },
    ],
  })
  const parsed = parseVerdict(text)
  const verdict = parsed.success
    ? { expectation, passed: parsed.data.passed, reason: parsed.data.reason }
    : {
        expectation,
        passed: false,
        reason: `the judge (${model}) did not answer with a verdict: ${JSON.stringify(text.slice(0, 200))}`,
      }
  return { verdict, costMicros }
}
