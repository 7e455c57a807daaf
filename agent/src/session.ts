import { llm, type log, type VAD, voice } from '@livekit/agents'
import type { AgentRuntimeConfig, CallSetup, DispatchMetadata, HandoffTarget } from '@parley/shared'
import { type Arrival, ParleyAgent } from './parley-agent.ts'
import { wordingFor } from './prompt.ts'
import { buildPipelineModels, buildRealtimeModel } from './providers.ts'
import { buildTools } from './tools/index.ts'
import { knowledgeForTurn } from './tools/search-knowledge.ts'
import { createTranscriptWriter } from './transcript.ts'
import type { EndReason, WorkerApi } from './worker-api.ts'

type Logger = ReturnType<typeof log>

/** What a call needs from outside the framework; a room's job gives these, and so do the tests. */
export type CallServices = {
  api: WorkerApi
  /** OUTBOUND_ALLOW_HOSTS: custom functions and web search may reach these over http. */
  allowHosts: readonly string[]
  /** One per job process, loaded once (prewarm). */
  vad: VAD
  /** Ends the job once the call is over (`ctx.shutdown` in a room). */
  shutdown: (reason: string) => void
  logger: Logger
}

const modelsFor = (runtime: AgentRuntimeConfig, setup: CallSetup) => {
  const options = { temperature: runtime.temperature, language: runtime.languages[0] ?? 'en' }
  return runtime.architecture === 'realtime'
    ? { llm: buildRealtimeModel(setup, options) }
    : buildPipelineModels(setup, options)
}

/**
 * The chat conversation a call continues, as the framework's context: the agent starts knowing
 * what was typed (and said in earlier calls) and carries on from there.
 */
const continuedContext = (history: CallSetup['history']) => {
  const context = llm.ChatContext.empty()
  for (const turn of history) context.addMessage({ role: turn.role, content: turn.content })
  return context
}

/**
 * Builds a call's session and first agent from the dispatch metadata and the call setup, without
 * a room: the job starts it in the room, the tests in the framework's text mode. No rule of the
 * product lives here (who may call what, billing): the server decided those in the metadata and
 * the setup; this maps them onto the framework. Throws UnsupportedSetupError when the setup lacks
 * a model the agent needs.
 */
export const buildCallSession = ({
  metadata,
  setup,
  services,
}: {
  metadata: DispatchMetadata
  setup: CallSetup
  services: CallServices
}) => {
  const { callId } = metadata
  const { api, logger } = services
  const transcript = createTranscriptWriter({
    callId,
    api,
    onLost: ({ lines, error }) =>
      logger.error({ callId, lines, error: String(error) }, 'transcript lines lost'),
  })
  const session = new voice.AgentSession({
    vad: services.vad,
    // Seconds (the framework's other timeouts are milliseconds). Set once: an agent reached by a
    // handoff keeps the call's first inactivity time-out.
    userAwayTimeout: metadata.agent.inactivityTimeout,
  })

  /** The current agent's last message, when it has one and the session can still speak. */
  const sayLastMessage = async () => {
    try {
      const agent = session.currentAgent as ParleyAgent
      if (agent.wording.lastMessage) await agent.speak(agent.wording.lastMessage).waitForPlayout()
    } catch (error) {
      logger.warn({ callId, error: String(error) }, 'last message not said')
    }
  }

  let ending: Promise<void> | undefined
  /** Says the current agent's last message, then ends the call on the server and the job. Once. */
  const hangUp = (reason: EndReason) => {
    ending ??= (async () => {
      await sayLastMessage()
      await transcript.flush()
      await api.end(callId, reason).catch((error: unknown) => {
        logger.error({ callId, reason, error: String(error) }, 'the server did not end the call')
      })
      services.shutdown(reason)
    })()
    return ending
  }

  const createAgent = ({
    runtime,
    agentSetup,
    arrival,
    chatCtx,
  }: {
    runtime: AgentRuntimeConfig
    agentSetup: CallSetup
    arrival: Arrival
    chatCtx?: voice.AgentOptions<unknown>['chatCtx']
  }) => {
    const wording = wordingFor(runtime, metadata.contact)
    return new ParleyAgent({
      runtime,
      wording,
      arrival,
      chatCtx,
      knowledgeFor: runtime.knowledge
        ? knowledgeForTurn({
            api,
            callId,
            onError: (error) =>
              logger.warn(
                { callId, error: String(error) },
                'knowledge search failed; replying without passages',
              ),
          })
        : null,
      ...modelsFor(runtime, agentSetup),
      tools: buildTools({
        runtime,
        setup: agentSetup,
        hasLastMessage: wording.lastMessage !== null,
        allowHosts: services.allowHosts,
        hangUp: () => void hangUp('agent_ended'),
        transfer,
        knowledge: { api, callId },
      }),
    })
  }

  /** The server checks the target and answers its configuration and setup; the new agent hears the conversation so far. */
  const transfer = async (target: HandoffTarget) => {
    try {
      const handed = await api.handoff(callId, target.id)
      const history = session.currentAgent.chatCtx.copy({
        excludeInstructions: true,
        excludeFunctionCall: true,
        excludeHandoff: true,
      })
      return createAgent({
        runtime: handed.agent,
        agentSetup: handed.setup,
        arrival: 'handoff',
        chatCtx: history,
      })
    } catch (error) {
      logger.warn({ callId, targetAgentId: target.id, error: String(error) }, 'handoff failed')
      throw error
    }
  }

  session.on(voice.AgentSessionEventTypes.ConversationItemAdded, ({ item }) => {
    if (item.type !== 'message' || (item.role !== 'user' && item.role !== 'assistant')) return
    transcript.add({ role: item.role, text: item.textContent ?? '', spokenAt: new Date(item.createdAt) })
  })
  session.on(voice.AgentSessionEventTypes.UserStateChanged, ({ newState }) => {
    if (newState === 'away') void hangUp('inactivity')
  })
  session.on(voice.AgentSessionEventTypes.Close, ({ reason, error }) => {
    // A model or provider that failed for good ends the call rather than leaving the caller in silence.
    if (reason === voice.CloseReason.ERROR && !ending) {
      logger.error({ callId, error: String(error) }, 'the session failed')
      ending = api
        .end(callId, 'agent_error')
        .then(() => undefined)
        .catch(() => undefined)
    }
    services.shutdown(String(reason))
  })

  const agent = createAgent({
    runtime: metadata.agent,
    agentSetup: setup,
    ...(setup.history.length > 0
      ? { arrival: 'continuation' as const, chatCtx: continuedContext(setup.history) }
      : { arrival: 'call-start' as const }),
  })
  return {
    session,
    agent,
    hangUp,
    /** Resolves when the call's ending (if any) and every transcript line are done: the job awaits it before it exits. */
    settled: async () => {
      await ending
      await transcript.flush()
    },
  }
}

export type CallSession = ReturnType<typeof buildCallSession>
