import { llm } from '@livekit/agents'
import { asToolParameters } from './json-schema.ts'

export const OPT_OUT_TOOL = 'opt_out'

/** Said when the model gave no confirming sentence of its own. */
export const DEFAULT_OPT_OUT_CONFIRMATION = 'You will not be called again. Goodbye.'

/**
 * opt_out on a phone call: the person asks not to be called again. The server puts the call's
 * other party on the organization's do-not-call list (the call as the source); once the turn that
 * called it is said, the session says the one confirming sentence and ends the call (opted_out).
 * If the server cannot list the number the call goes on and the model is told so.
 */
export const optOutTool = ({
  optOut,
  endOptedOut,
}: {
  optOut: () => Promise<unknown>
  endOptedOut: (confirmation: string) => void
}) =>
  llm.tool({
    name: OPT_OUT_TOOL,
    description:
      'Use when the person asks not to be called again (to be put on the do-not-call list or taken off the calling list). ' +
      'Their number is listed, your confirmation is said for you and the call ends: do not say goodbye yourself.',
    parameters: asToolParameters({
      type: 'object',
      properties: {
        confirmation: {
          type: 'string',
          maxLength: 300,
          description:
            "One sentence in the conversation's language confirming they will not be called again, e.g. \"I've removed your number; you won't be called again. Goodbye.\"",
        },
      },
      required: ['confirmation'],
    }),
    execute: async (args: { confirmation?: unknown }, { ctx }) => {
      try {
        await optOut()
      } catch {
        return 'The number could not be put on the do-not-call list just now. Apologise, say the request is noted, and end the call.'
      }
      const sentence =
        typeof args.confirmation === 'string' && args.confirmation.trim() !== ''
          ? args.confirmation.trim().slice(0, 300)
          : DEFAULT_OPT_OUT_CONFIRMATION
      ctx.speechHandle.addDoneCallback(() => endOptedOut(sentence))
      return undefined
    },
  })
