import { llm } from '@livekit/agents'

/**
 * end_call: once the turn that called it has been said, the call hangs up (`hangUp` says the
 * agent's last message first). It returns nothing, so the model is not asked for another reply.
 */
export const endCallTool = ({ hasLastMessage, hangUp }: { hasLastMessage: boolean; hangUp: () => void }) =>
  llm.tool({
    name: 'end_call',
    description: hasLastMessage
      ? 'End the call when the caller says goodbye or asks to stop, or the conversation is over. Your closing words are said for you: do not say goodbye yourself.'
      : 'End the call when the caller says goodbye or asks to stop, or the conversation is over. Say goodbye first.',
    execute: async (_args, { ctx }) => {
      ctx.speechHandle.addDoneCallback(() => hangUp())
      return undefined
    },
  })
