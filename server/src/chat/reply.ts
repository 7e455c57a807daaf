import type { ChatStreamEventName, ChatStreamEvents } from '@parley/shared'
import type { AgentRow } from '../agents/index.ts'
import type { AuditBy } from '../audit/index.ts'
import type { AppContext } from '../context.ts'
import { ProviderError } from '../providers/provider-error.ts'
import { CHAT_CREDITS_MESSAGE, priceReply } from './billing.ts'
import { completionSourceFor, type LlmMessage, type LlmTool, type ToolCall } from './llm.ts'
import { optOutOfConversation, simulatedOptOut } from './opt-out.ts'
import type { PreparedReply } from './plan.ts'
import { systemPromptFor } from './prompt.ts'
import { countOutputTokens, countPromptTokens } from './reply-cost.ts'
import type { ConversationRow, ToolCallRecord } from './store.ts'
import * as store from './store.ts'
import { buildToolset, type Toolset } from './tools.ts'

/** Tool rounds per reply; the round after the last offers no tools, so the model must answer. */
export const MAX_TOOL_ROUNDS = 5

const REPLY_FAILED = 'The assistant could not finish this reply; please try again'

export type Emit = <Name extends ChatStreamEventName>(event: Name, data: ChatStreamEvents[Name]) => void

/** A model round about to be sent after the reply's first: what its hold must cover. */
export type NextRound = {
  model: string
  messages: LlmMessage[]
  tools: LlmTool[]
  /** What the reply's finished rounds cost. */
  usedMicros: number
  /** Where this round's text starts in the reply's text. */
  textOffset: number
}

/** Grows the reply's hold to cover the round; false: the credits do not, and it is not sent. */
export type CoverRound = (round: NextRound) => Promise<boolean>

export type ReplyOutcome = {
  text: string
  inputTokens: number
  outputTokens: number
  costMicros: number
  endSession: boolean
  /** complete; partial (an upstream error or a lost client); stopped (the stop endpoint). */
  status: 'complete' | 'partial' | 'stopped'
  /** Safe to show; set when the reply failed. */
  error: string | null
  /** The agent answering at the end: another one after a handoff. */
  agent: AgentRow
  /** The catalogue model that answered (last). */
  model: string
  /** Set when the reply switched to the agent's fallback model: the model whose provider failed. */
  fallbackFrom: string | null
  /** The tools called and handoffs made, in order, for the owner's record of the conversation. */
  toolCalls: ToolCallRecord[]
}

/** The next round's worst case is not covered by the credits: the reply stops before it. */
class CreditsExhausted extends Error {}

/** A tool's answer that is a JSON object with an `error` says the call failed. */
const failed = (result: string) => {
  try {
    const parsed: unknown = JSON.parse(result)
    return typeof parsed === 'object' && parsed !== null && 'error' in parsed
  } catch {
    return false
  }
}

const parseArguments = (text: string): unknown => {
  try {
    return text.trim() === '' ? {} : JSON.parse(text)
  } catch {
    return {}
  }
}

const toAssistantTurn = (text: string, calls: ToolCall[]): LlmMessage => ({
  role: 'assistant',
  content: text || null,
  tool_calls: calls.map((call) => ({
    id: call.id,
    type: 'function' as const,
    function: { name: call.name, arguments: call.arguments },
  })),
})

/**
 * One assistant reply: model rounds with tools in between, until the model answers in text, ends
 * the chat, or the round limit is reached. Text streams out as it arrives; a handoff switches the
 * answering agent for this reply and (persisted) for the rest of the session.
 */
export const runReply = async ({
  ctx,
  conversation,
  prepared,
  emit,
  signal,
  coverRound,
  simulation,
  by,
}: {
  ctx: AppContext
  conversation: Pick<ConversationRow, 'id' | 'organizationId'>
  prepared: PreparedReply
  emit: Emit
  signal: AbortSignal
  /** Every round after the first (tool rounds, a fallback) is paid for before it is sent. */
  coverRound: CoverRound
  /**
   * An agent test's reply (simulate.ts): there is no conversation row to hand off in, and the
   * tools of an agent handed to are wrapped as the first agent's were (functions answered by stubs).
   */
  simulation?: { wrapToolset: (toolset: Toolset) => Toolset }
  /** Who the reply's changes (an opt_out's listing) are recorded as: the message's request. */
  by: AuditBy
}): Promise<ReplyOutcome> => {
  const outcome: ReplyOutcome = {
    text: '',
    inputTokens: 0,
    outputTokens: 0,
    costMicros: 0,
    endSession: false,
    status: 'complete',
    error: null,
    agent: prepared.agent,
    model: prepared.agent.model ?? 'offline',
    fallbackFrom: null,
    toolCalls: [],
  }
  let { agent, toolset } = prepared
  // Whether the current agent's replies now come from its fallback model.
  let onFallback = false
  const { messages } = prepared.request
  emit('stream_start', { agent_name: agent.name })
  if (prepared.knowledge) emit('sources', { sources: prepared.knowledge.sources })

  try {
    for (let round = 0; round <= MAX_TOOL_ROUNDS; round++) {
      let model = (onFallback ? agent.fallbackModel : agent.model) ?? 'offline'
      const tools = round < MAX_TOOL_ROUNDS ? toolset.tools : []
      const streamRound = async () => {
        const isCovered = await coverRound({
          model,
          messages,
          tools,
          usedMicros: outcome.costMicros,
          textOffset: outcome.text.length,
        })
        if (!isCovered) throw new CreditsExhausted()
        return (await completionSourceFor(ctx, { organizationId: conversation.organizationId, model }))({
          model,
          messages,
          tools,
          temperature: agent.temperature,
          maxTokens: ctx.config.chatMaxReplyTokens,
          signal,
        })
      }
      let events = round === 0 ? prepared.firstRound : await streamRound()
      let roundText = ''
      let calls: ToolCall[] = []
      let usage: { inputTokens: number; outputTokens: number } | null = null
      for (;;) {
        let switches = false
        try {
          for await (const event of events) {
            if (event.type === 'text') {
              roundText += event.delta
              outcome.text += event.delta
              emit('chunk', { delta: event.delta })
            } else if (event.type === 'usage') usage = event
            else calls = event.calls
          }
        } catch (error) {
          // Before the reply's first chunk, a provider failure is retried once on the fallback model.
          switches =
            error instanceof ProviderError &&
            !signal.aborted &&
            outcome.text === '' &&
            outcome.fallbackFrom === null &&
            !onFallback &&
            agent.fallbackModel !== null
          if (!switches) throw error
          ctx.logger.warn(
            {
              ...(error as ProviderError).logFields,
              conversationId: conversation.id,
              model,
              fallbackModel: agent.fallbackModel,
            },
            `chat reply falls back from ${model} to ${agent.fallbackModel}: its provider failed`,
          )
        } finally {
          // A cut-off round still cost tokens: count what the provider did not report (the
          // prompt sent, the text received). A request refused before any text (the one switched
          // away from) cost none.
          if (!switches) {
            usage ??= {
              inputTokens: countPromptTokens(ctx, { model, messages, tools }),
              outputTokens: countOutputTokens(ctx, { model, text: roundText }),
            }
            outcome.inputTokens += usage.inputTokens
            outcome.outputTokens += usage.outputTokens
            outcome.costMicros += priceReply(ctx.config, { model, usage })
          }
        }
        if (!switches) break
        outcome.fallbackFrom = model
        onFallback = true
        model = agent.fallbackModel ?? 'offline'
        events = await streamRound()
      }
      outcome.model = model
      if (calls.length === 0) break

      messages.push(toAssistantTurn(roundText, calls))
      let handoffTarget: AgentRow | null = null
      let optOutConfirmation: string | null = null
      for (const call of calls) {
        const action = toolset.actionFor(call)
        let result = JSON.stringify({ error: `Unknown tool ${call.name}` })
        if (action?.kind === 'function') {
          emit('tool_call', { name: action.name, status: 'executing' })
          result = await action.run(parseArguments(call.arguments))
          emit('tool_result', { name: action.name, status: 'completed' })
        } else if (action?.kind === 'end_call') {
          emit('tool_call', { name: action.name, status: 'executing' })
          outcome.endSession = true
          result = JSON.stringify({ ended: true })
          emit('tool_result', { name: action.name, status: 'completed' })
        } else if (action?.kind === 'opt_out') {
          emit('tool_call', { name: action.name, status: 'executing' })
          const args = parseArguments(call.arguments)
          const done = simulation
            ? simulatedOptOut(args)
            : await optOutOfConversation(ctx, { agent: action.agent, conversation, args, by })
          result = done.result
          if (done.confirmation !== null) {
            outcome.endSession = true
            optOutConfirmation = done.confirmation
          }
          emit('tool_result', { name: action.name, status: 'completed' })
        } else if (action?.kind === 'handoff' && !handoffTarget) {
          handoffTarget = action.target
          emit('handoff', { from_agent: agent.name, to_agent: action.target.name })
          result = JSON.stringify({ transferred_to: action.target.name })
        }
        outcome.toolCalls.push({
          kind: action?.kind === 'opt_out' ? 'function' : (action?.kind ?? 'unknown'),
          name: action?.name ?? call.name,
          arguments: parseArguments(call.arguments),
          status: failed(result) ? 'failed' : 'completed',
          targetAgentId:
            action?.kind === 'handoff' && handoffTarget === action.target ? action.target.id : null,
          at: new Date(),
        })
        messages.push({ role: 'tool', tool_call_id: call.id, content: result })
      }
      if (outcome.endSession) {
        // end_call says the agent's closing line, if it has one, before the chat ends; opt_out
        // its confirmation instead.
        const closingLine = optOutConfirmation ?? agent.lastMessage
        if (closingLine) {
          const closing = `${outcome.text ? ' ' : ''}${closingLine}`
          outcome.text += closing
          emit('chunk', { delta: closing })
        }
        break
      }
      if (handoffTarget) {
        agent = handoffTarget
        outcome.agent = agent
        onFallback = false
        if (!simulation) await store.setCurrentAgent(ctx.db, { id: conversation.id, agentId: agent.id })
        messages[0] = { role: 'system', content: systemPromptFor(agent, null) }
        const handedTo = await buildToolset(ctx, agent, conversation.organizationId)
        toolset = simulation ? simulation.wrapToolset(handedTo) : handedTo
      }
    }
  } catch (error) {
    if (signal.aborted) {
      outcome.status = signal.reason === 'stopped' ? 'stopped' : 'partial'
    } else if (error instanceof CreditsExhausted) {
      // The balance minus the other replies' holds no longer covers the next round: it is not
      // sent, and the reply ends with what it said so far (paid for).
      outcome.status = 'partial'
      outcome.error = CHAT_CREDITS_MESSAGE
    } else if (error instanceof ProviderError) {
      // The operator's line: which provider, what it answered, its request id; never the key.
      ctx.logger.warn(
        { ...error.logFields, conversationId: conversation.id, model: agent.model },
        `chat reply failed at the model provider ${error.provider}`,
      )
      outcome.status = 'partial'
      // Cut off mid-reply, the visitor already reads part of an answer: the plain words fit.
      outcome.error = outcome.text === '' ? error.visitorMessage : REPLY_FAILED
    } else {
      ctx.logger.warn({ err: error, conversationId: conversation.id }, 'chat reply failed')
      outcome.status = 'partial'
      outcome.error = REPLY_FAILED
    }
  }
  if (outcome.status === 'complete' && signal.aborted)
    outcome.status = signal.reason === 'stopped' ? 'stopped' : 'partial'
  return outcome
}
