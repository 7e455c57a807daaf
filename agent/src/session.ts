import { createHash } from 'node:crypto'
import { llm, type log, type VAD, voice } from '@livekit/agents'
import { nameTransferTools } from '@parley/platform'
import type {
  AgentRuntimeConfig,
  AmdVerdict,
  CallSetup,
  CallTransferResponse,
  DispatchMetadata,
  HandoffTarget,
  RuntimeTransferDestination,
  warmTransferResults,
} from '@parley/shared'
import { type AmdRun, type DetectionModels, detectAnsweringMachine, type WaitForAnswer } from './amd.ts'
import { type Arrival, ParleyAgent } from './parley-agent.ts'
import { wordingFor } from './prompt.ts'
import {
  buildDetectionModels,
  buildPipelineModels,
  buildRealtimeModel,
  loadProvidersFor,
} from './providers.ts'
import { buildTools } from './tools/index.ts'
import { knowledgeForTurn } from './tools/search-knowledge.ts'
import type { Keypad } from './tools/send-dtmf.ts'
import { createTranscriptWriter } from './transcript.ts'
import type { EndReason, WorkerApi } from './worker-api.ts'

type Logger = ReturnType<typeof log>

export type WarmTransferResult = (typeof warmTransferResults)[number]

/**
 * A warm transfer run on the call's own models: dial the person on `line`, brief them with the
 * conversation so far, and join them with the caller (the job's is the framework's
 * WarmTransferTask). Answers how it ended; never throws.
 */
export type WarmTransfer = (input: {
  line: NonNullable<CallTransferResponse['data']['line']>
  agent: ParleyAgent
}) => Promise<WarmTransferResult>

/** How long the caller's key presses are gathered before the agent hears them, as one input. */
export const KEY_PRESS_WINDOW_MS = 600

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
  /** The phone keypad (send_dtmf); absent on a web call, which has no phone line. */
  keypad?: Keypad | null
  /** Warm transfers to a person; absent where none can run (the agent says so to the caller). */
  warmTransfer?: WarmTransfer | null
  /**
   * An outbound call's wait for the callee to answer (`sip.callStatus` active): given, the call
   * runs answering-machine detection (`detectAnsweringMachine`) and its first agent greets only a
   * person. Absent: no detection (a web call, or a test of something else).
   */
  waitForAnswer?: WaitForAnswer | null
  /**
   * How long detection waits after the callee's last words for more when no VAD marks the end of
   * their speech (the framework's end-of-turn wait, 3 s unless given): text-mode tests, where
   * transcripts arrive without audio, shorten it.
   */
  amdEndOfTurnMs?: number
}

const modelsFor = (runtime: AgentRuntimeConfig, setup: CallSetup, vad: VAD) => {
  const options = { temperature: runtime.temperature, language: runtime.languages[0] ?? 'en' }
  return runtime.architecture === 'realtime'
    ? { llm: buildRealtimeModel(setup, options) }
    : buildPipelineModels(setup, { ...options, vad })
}

/**
 * A realtime agent's pipeline fallback as the models of a pipeline setup, when the setup names
 * all three parts; null otherwise.
 */
const pipelineFallbackOf = (setup: CallSetup) =>
  setup.fallbackLlm && setup.fallbackStt && setup.fallbackTts
    ? {
        llm: setup.fallbackLlm,
        stt: setup.fallbackStt,
        tts: setup.fallbackTts,
        realtime: null,
        fallbackLlm: null,
        fallbackStt: null,
        fallbackTts: null,
      }
    : null

/**
 * The chat conversation a call continues, as the framework's context: the agent starts knowing
 * what was typed (and said in earlier calls) and carries on from there.
 */
const continuedContext = (history: CallSetup['history']) => {
  const context = llm.ChatContext.empty()
  for (const turn of history) context.addMessage({ role: turn.role, content: turn.content })
  return context
}

/** The framework's item ids may hold characters the server's ids refuse: those are hashed. */
const workerIdOf = (id: string) =>
  /^[A-Za-z0-9_-]{1,64}$/.test(id) ? id : createHash('sha256').update(id).digest('hex').slice(0, 40)

/** A tool call's arguments as an object (what the model sent, when it is not one, under `raw`). */
const argumentsOf = (args: string): Record<string, unknown> => {
  try {
    const parsed: unknown = JSON.parse(args || '{}')
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>
  } catch {
    // not JSON: kept as sent
  }
  return { raw: args.slice(0, 5_000) }
}

/**
 * Builds a call's session and first agent from the dispatch metadata and the call setup, without
 * a room: the job starts it in the room, the tests in the framework's text mode. No rule of the
 * product lives here (who may call what, billing): the server decided those in the metadata and
 * the setup; this maps them onto the framework. Throws UnsupportedSetupError when the setup lacks
 * a model the agent needs. The setup's plugins are loaded first (`loadProvidersFor`).
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

  /** What answering-machine detection decided: every end of the call tells the server. */
  let amdVerdict: AmdVerdict | undefined
  let ending: Promise<void> | undefined
  /** Says `closing` word for word (opt_out's confirmation), when the session can still speak. */
  const sayClosing = async (closing: string) => {
    try {
      await (session.currentAgent as ParleyAgent).speak(closing).waitForPlayout()
    } catch (error) {
      logger.warn({ callId, error: String(error) }, 'closing sentence not said')
    }
  }

  /**
   * Says the current agent's last message (or `closing` instead, when given; nothing when
   * `silent`: a machine is not said goodbye to), then ends the call on the server and the job. Once.
   */
  const hangUp = (
    reason: EndReason,
    { silent = false, closing }: { silent?: boolean; closing?: string } = {},
  ) => {
    ending ??= (async () => {
      if (closing !== undefined) await sayClosing(closing)
      else if (!silent) await sayLastMessage()
      await transcript.flush()
      await api.end(callId, reason, amdVerdict).catch((error: unknown) => {
        logger.error({ callId, reason, error: String(error) }, 'the server did not end the call')
      })
      services.shutdown(reason)
    })()
    return ending
  }

  const notConnected = (name: string, result: string) =>
    result === 'no_answer'
      ? `${name} did not answer. Tell the caller and carry on helping them yourself.`
      : result === 'declined'
        ? `${name} could not take the call now. Tell the caller and carry on helping them yourself.`
        : `The transfer to ${name} did not go through. Tell the caller and carry on helping them yourself.`

  /**
   * transfer_call: the server carries out a cold transfer and answers its result; for a warm one it
   * answers the line, this runs the warm transfer and reports how it ended. Whether the person
   * has the caller now decides whether the agent leaves.
   */
  let transferring = 0
  const transferToPerson = async (destination: RuntimeTransferDestination) => {
    // The caller is silent on hold while the person is rung and briefed: that is not inactivity.
    transferring++
    try {
      return await runTransfer(destination)
    } finally {
      transferring--
    }
  }
  const runTransfer = async (destination: RuntimeTransferDestination) => {
    let started: CallTransferResponse['data']
    try {
      started = await api.transfer(callId, { destination: destination.name })
    } catch (error) {
      logger.warn({ callId, destination: destination.name, error: String(error) }, 'transfer refused')
      return { connected: false, why: notConnected(destination.name, 'failed') }
    }
    if (started.line === null) {
      const { status } = started.transfer
      return status === 'transferred'
        ? { connected: true, why: '' }
        : { connected: false, why: notConnected(destination.name, status) }
    }
    const result: WarmTransferResult = services.warmTransfer
      ? await services.warmTransfer({ line: started.line, agent: session.currentAgent as ParleyAgent })
      : 'failed'
    await api
      .transfer(callId, { destination: destination.name, transferId: started.transfer.id, result })
      .catch((error: unknown) =>
        logger.error(
          { callId, transferId: started.transfer.id, error: String(error) },
          'transfer result not recorded',
        ),
      )
    return result === 'transferred'
      ? { connected: true, why: '' }
      : { connected: false, why: notConnected(destination.name, result) }
  }

  let leaving: Promise<void> | undefined
  /** After a transfer the person has the caller: the agent leaves the room; the call goes on without it. */
  const leave = () => {
    leaving ??= (async () => {
      await transcript.flush()
      services.shutdown('transferred')
    })()
  }

  /** The transfer tools of the call's agents so far, by name: a tool call's handoff target. */
  const transferTargets = new Map<string, HandoffTarget>()

  const createAgent = ({
    runtime,
    agentSetup,
    arrival,
    chatCtx,
    greetWhen = null,
  }: {
    runtime: AgentRuntimeConfig
    agentSetup: CallSetup
    arrival: Arrival
    chatCtx?: voice.AgentOptions<unknown>['chatCtx']
    greetWhen?: Promise<boolean> | null
  }) => {
    const wording = wordingFor(runtime, metadata.contact, agentSetup.memory ?? null)
    for (const { name, target } of nameTransferTools(runtime.handoffAgents)) transferTargets.set(name, target)
    const agent = new ParleyAgent({
      runtime,
      wording,
      arrival,
      chatCtx,
      greetWhen,
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
      ...modelsFor(runtime, agentSetup, services.vad),
      tools: buildTools({
        runtime,
        setup: agentSetup,
        hasLastMessage: wording.lastMessage !== null,
        allowHosts: services.allowHosts,
        hangUp: () => void hangUp('agent_ended'),
        transfer,
        knowledge: { api, callId },
        phone: {
          keypad: services.keypad ?? null,
          transferToPerson,
          leave,
          optOut:
            metadata.direction === 'web'
              ? null
              : {
                  list: () => api.optOut(callId),
                  endOptedOut: (confirmation) => void hangUp('opted_out', { closing: confirmation }),
                },
        },
      }),
    })
    builtFrom.set(agent, { runtime, agentSetup })
    return agent
  }

  /** The server checks the target and answers its configuration and setup; the new agent hears the conversation so far. */
  const transfer = async (target: HandoffTarget) => {
    try {
      const handed = await api.handoff(callId, target.id)
      await loadProvidersFor(handed.setup)
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
    transcript.add({
      role: item.role,
      text: item.textContent ?? '',
      spokenAt: new Date(item.createdAt),
      interrupted: item.interrupted,
    })
  })
  // Tool calls are kept with the call as chat keeps a reply's: what ran, with which arguments, and
  // whether it failed; a transfer names the agent that answered from then on.
  session.on(voice.AgentSessionEventTypes.FunctionToolsExecuted, ({ functionCalls, functionCallOutputs }) => {
    for (const [index, call] of functionCalls.entries()) {
      const failed = functionCallOutputs[index]?.isError ?? false
      const target = transferTargets.get(call.name)
      transcript.toolCall({
        id: workerIdOf(call.id),
        kind: target ? 'handoff' : call.name === 'end_call' ? 'end_call' : 'function',
        name: call.name,
        arguments: argumentsOf(call.args),
        status: failed ? 'failed' : 'completed',
        targetAgentId: target && !failed ? target.id : null,
        calledAt: new Date(call.createdAt).toISOString(),
      })
    }
  })
  // A model's or provider's error: the framework retries, falls back or closes the session on
  // its own (Close below); an `error` event nobody listens to would throw in Node.
  session.on(voice.AgentSessionEventTypes.Error, ({ error }) => {
    const { type, recoverable } = error as { type?: string; recoverable?: boolean }
    logger.warn(
      { callId, type, recoverable, error: String((error as { error?: unknown }).error ?? error) },
      'model error',
    )
  })
  /** Each agent of the call with what it was built from: a realtime agent's fallback reads it. */
  const builtFrom = new WeakMap<voice.Agent, { runtime: AgentRuntimeConfig; agentSetup: CallSetup }>()
  let fellBack = false
  /**
   * A realtime agent whose setup names a whole pipeline fallback (fallbackLlm, fallbackStt and
   * fallbackTts): when its realtime model fails for good, at the start of the call or later, the
   * call goes on with a pipeline agent on those models, which hears the conversation so far. The
   * framework's LLM fallback adapter does not take realtime models; its session reports the
   * failure as an `error` event (`realtime_model_error`, not recoverable) and closes after its
   * listeners ran unless the error was made recoverable, which this does once it switched. Once
   * per call: a failing fallback ends the call as any failing pipeline does.
   */
  session.on(voice.AgentSessionEventTypes.Error, (event) => {
    const error = event.error as { type?: string; recoverable?: boolean }
    if (fellBack || error.type !== 'realtime_model_error' || error.recoverable) return
    const current = builtFrom.get(session.currentAgent)
    const pipeline = current && pipelineFallbackOf(current.agentSetup)
    if (current?.runtime.architecture !== 'realtime' || !pipeline) return
    fellBack = true
    const history = session.currentAgent.chatCtx.copy({
      excludeInstructions: true,
      excludeFunctionCall: true,
      excludeHandoff: true,
    })
    const messages = history.items.filter((item) => item.type === 'message')
    const last = messages.at(-1)
    const arrival: Arrival = !last ? 'call-start' : last.role === 'user' ? 'handoff' : 'continuation'
    try {
      session.updateAgent(
        createAgent({
          runtime: { ...current.runtime, architecture: 'pipeline' },
          agentSetup: { ...current.agentSetup, ...pipeline },
          arrival,
          chatCtx: history,
        }),
      )
      error.recoverable = true
      logger.warn({ callId }, 'the realtime model failed; the call goes on with its pipeline fallback')
    } catch (failure) {
      logger.error({ callId, error: String(failure) }, 'the pipeline fallback could not start')
    }
  })
  session.on(voice.AgentSessionEventTypes.UserStateChanged, ({ newState }) => {
    if (newState === 'away' && transferring === 0 && !leaving) void hangUp('inactivity')
  })
  session.on(voice.AgentSessionEventTypes.Close, ({ reason, error }) => {
    // A model or provider that failed for good ends the call rather than leaving the caller in silence.
    if (reason === voice.CloseReason.ERROR && !ending) {
      logger.error({ callId, error: String(error) }, 'the session failed')
      ending = api
        .end(callId, 'agent_error', amdVerdict)
        .then(() => undefined)
        .catch(() => undefined)
    }
    services.shutdown(String(reason))
  })

  let pressed = ''
  let pressTimer: ReturnType<typeof setTimeout> | undefined
  /**
   * A key the caller pressed: the keys pressed within KEY_PRESS_WINDOW_MS of each other reach the
   * agent together as the caller's input ("The caller pressed 2"), which the transcript keeps.
   */
  const keyPressed = (digit: string) => {
    if (!/^[0-9*#A-D]$/.test(digit)) return
    pressed += digit
    clearTimeout(pressTimer)
    pressTimer = setTimeout(() => {
      const keys = pressed
      pressed = ''
      try {
        session.generateReply({ userInput: `The caller pressed ${keys.split('').join(' ')}` })
      } catch (error) {
        logger.warn({ callId, error: String(error) }, 'a key press was not heard')
      }
    }, KEY_PRESS_WINDOW_MS)
  }
  session.on(voice.AgentSessionEventTypes.Close, () => clearTimeout(pressTimer))

  // An outbound call with detection: the first agent greets once a person is heard.
  const detecting =
    metadata.direction === 'outbound' && services.waitForAnswer ? services.waitForAnswer : null
  let personHeard: (person: boolean) => void = () => {}
  const greetWhen = detecting
    ? new Promise<boolean>((resolve) => {
        personHeard = resolve
      })
    : null
  session.on(voice.AgentSessionEventTypes.Close, () => personHeard(false))

  const agent = createAgent({
    runtime: metadata.agent,
    agentSetup: setup,
    greetWhen,
    ...(setup.history.length > 0
      ? { arrival: 'continuation' as const, chatCtx: continuedContext(setup.history) }
      : { arrival: 'call-start' as const }),
  })
  return {
    session,
    agent,
    hangUp,
    keyPressed,
    /**
     * Answering-machine detection, once the session started: resolves with the verdict and what
     * was done about it (see amd.ts). Runs only on an outbound call given `waitForAnswer`.
     */
    detectAnsweringMachine: async (): Promise<AmdRun | null> => {
      if (!detecting) return null
      // A realtime agent classifies with the text model and STT the server chose for detection.
      let models: DetectionModels | null = null
      if (agent.runtime.architecture === 'realtime') {
        try {
          models = setup.amd ? buildDetectionModels(setup.amd, services.vad) : null
        } catch (error) {
          logger.warn({ callId, error: String(error) }, 'detection models not built')
        }
      }
      try {
        return await detectAnsweringMachine({
          models,
          session,
          agent,
          setting: metadata.agent.voicemail,
          message: agent.wording.voicemailMessage,
          waitForAnswer: detecting,
          keypad: services.keypad ?? null,
          ...(services.amdEndOfTurnMs === undefined ? {} : { endOfTurnMs: services.amdEndOfTurnMs }),
          ...(metadata.sipParticipantIdentity
            ? { participantIdentity: metadata.sipParticipantIdentity }
            : {}),
          verdictReached: (verdict, person) => {
            amdVerdict = verdict
            personHeard(person)
          },
          end: (reason) => hangUp(reason, { silent: true }),
          logger,
        })
      } finally {
        // Ours, not the framework's: AMD leaves a given model open.
        await models?.stt?.close().catch(() => undefined)
        await models?.llm.aclose().catch(() => undefined)
      }
    },
    /** Resolves when the call's ending (if any) and every transcript line are done: the job awaits it before it exits. */
    settled: async () => {
      await ending
      await leaving
      await transcript.flush()
    },
  }
}

export type CallSession = ReturnType<typeof buildCallSession>
