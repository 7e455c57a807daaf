import { isDeepStrictEqual } from 'node:util'
import { Script } from 'node:vm'
import type { ExpectationVerdict, TestExpectation, TranscriptTurn } from '@parley/shared'
import safeRegex from 'safe-regex'
import { AppError } from '../http/app-error.ts'

/**
 * What the agent must and must not do, checked on a finished transcript: text and patterns on the
 * agent's replies, functions called with arguments that match, a handoff, the end of the chat.
 * Judge expectations are the judge's (judge.ts).
 */

/** A pattern runs at most this long on a transcript (its star height is checked too, on save). */
const PATTERN_TIME_LIMIT_MS = 100

/** Refuses (400, naming the expectation) a pattern that is not a valid regex or could run away. */
export const checkPatterns = (expectations: TestExpectation[]) => {
  expectations.forEach((expectation, index) => {
    if ((expectation.type !== 'must_say' && expectation.type !== 'must_not_say') || !expectation.pattern)
      return
    const field = `expectations.${index}.pattern`
    try {
      new RegExp(expectation.pattern, 'iu')
    } catch {
      throw AppError.badRequest(`${field}: is not a valid regular expression`)
    }
    if (!safeRegex(expectation.pattern))
      throw AppError.badRequest(`${field}: could take exponential time (nested repetition); simplify it`)
  })
}

/**
 * Whether the pattern matches, run in a separate context with a time limit: a pattern that slips
 * past the star-height check cannot hold the event loop for more than the limit.
 */
const matchesPattern = (pattern: string, text: string): boolean | 'timeout' => {
  try {
    return new Script('new RegExp(pattern, "iu").test(text)').runInNewContext(
      { pattern, text },
      { timeout: PATTERN_TIME_LIMIT_MS },
    ) as boolean
  } catch {
    return 'timeout'
  }
}

/** Every field of `expected` is in `actual` with an equal value (objects compared recursively). */
export const matchesPartially = (expected: unknown, actual: unknown): boolean => {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false
    return Object.entries(expected).every(([key, value]) =>
      matchesPartially(value, (actual as Record<string, unknown>)[key]),
    )
  }
  return isDeepStrictEqual(expected, actual)
}

const quote = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text)

const sayVerdict = (
  expectation: Extract<TestExpectation, { type: 'must_say' | 'must_not_say' }>,
  replies: string,
): Omit<ExpectationVerdict, 'expectation'> => {
  const wanted = expectation.type === 'must_say'
  const what =
    expectation.text !== undefined
      ? `the text ${quote(expectation.text)}`
      : `the pattern /${expectation.pattern}/`
  const found =
    expectation.text !== undefined
      ? replies.toLowerCase().includes(expectation.text.toLowerCase())
      : matchesPattern(expectation.pattern ?? '', replies)
  if (found === 'timeout') return { passed: false, reason: `${what} ran past ${PATTERN_TIME_LIMIT_MS} ms` }
  if (found === wanted) return { passed: true, reason: `the agent ${found ? 'said' : 'never said'} ${what}` }
  return { passed: false, reason: `the agent ${found ? 'said' : 'never said'} ${what}` }
}

/** The verdict of a deterministic expectation (not `judge`) on the transcript. */
export const checkExpectation = (
  expectation: Exclude<TestExpectation, { type: 'judge' }>,
  transcript: TranscriptTurn[],
): ExpectationVerdict => {
  const replies = transcript
    .filter((turn) => turn.role === 'agent')
    .map((turn) => turn.content)
    .join('\n')
  const tools = transcript.filter((turn) => turn.role === 'tool')
  const verdict = (passed: boolean, reason: string) => ({ expectation, passed, reason })
  switch (expectation.type) {
    case 'must_say':
    case 'must_not_say':
      return { expectation, ...sayVerdict(expectation, replies) }
    case 'must_call': {
      const calls = tools.filter((turn) => turn.name === expectation.function)
      if (calls.length === 0) return verdict(false, `${expectation.function} was never called`)
      if (!expectation.arguments) return verdict(true, `${expectation.function} was called`)
      const match = calls.find((call) => matchesPartially(expectation.arguments, call.arguments))
      return match
        ? verdict(true, `${expectation.function} was called with ${JSON.stringify(match.arguments)}`)
        : verdict(
            false,
            `${expectation.function} was called, never with arguments matching ${JSON.stringify(expectation.arguments)} (got ${calls.map((call) => JSON.stringify(call.arguments)).join(', ')})`,
          )
    }
    case 'must_not_call': {
      const called = tools.some((turn) => turn.name === expectation.function)
      return verdict(!called, `${expectation.function} was ${called ? '' : 'never '}called`)
    }
    case 'must_hand_off': {
      const handoffs = tools.filter((turn) => turn.kind === 'handoff')
      const target = handoffs.find((turn) => !expectation.agentId || turn.content === expectation.agentId)
      if (target) return verdict(true, `the agent handed off (${target.name})`)
      return verdict(
        false,
        handoffs.length > 0 ? 'the agent handed off, but to another agent' : 'the agent never handed off',
      )
    }
    case 'must_end': {
      const ended = tools.some((turn) => turn.kind === 'end_call')
      return verdict(ended, ended ? 'the agent ended the chat' : 'the agent never ended the chat')
    }
  }
}
