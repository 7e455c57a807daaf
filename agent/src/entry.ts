import { setTimeout as wait } from 'node:timers/promises'
import {
  defineAgent,
  inference,
  type JobContext,
  type JobProcess,
  log,
  type VAD,
  voice,
  waitForParticipantAttribute,
  workflows,
} from '@livekit/agents'
import { type RemoteParticipant, RoomEvent } from '@livekit/rtc-node'
import { type AgentConfig, loadAgentConfig } from './config.ts'
import { readDispatch } from './dispatch.ts'
import { answerInbound, readInboundJob, sayRefusal } from './inbound.ts'
import { createMetricsReporter } from './job-metrics.ts'
import { buildSpeech, loadProviders, loadProvidersFor } from './providers.ts'
import { buildCallSession, type CallSession, type WarmTransfer, type WarmTransferResult } from './session.ts'
import { watchSipStatus } from './sip-status.ts'
import type { Keypad } from './tools/send-dtmf.ts'
import { flushWorkerTraces, startWorkerTracing } from './tracing.ts'
import { createWorkerApi } from './worker-api.ts'

/**
 * The job process's side of the worker: each call runs here, one call per process. The worker
 * (main.ts) imports nothing of this; the framework loads this file into every job process.
 */

let config: AgentConfig | undefined
const configOnce = () => {
  config ??= loadAgentConfig()
  return config
}

type ProcessData = { vad: VAD }

/** This process's reports to the worker's /metrics (a no-op outside a worker). */
const reporter = createMetricsReporter()

/** How the framework's WarmTransferTask ended, from the ToolError it completes with. */
const warmResultOf = (error: unknown): WarmTransferResult => {
  const message = error instanceof Error ? error.message : String(error)
  if (/declined/i.test(message)) return 'declined'
  if (/could not dial|voicemail|disconnected/i.test(message)) return 'no_answer'
  return 'failed'
}

/**
 * A warm transfer with the framework's WarmTransferTask, on the call's own models: it dials the
 * person on the server's line into a room of its own (the caller hears hold music), briefs them
 * with the conversation so far, and on their word moves them into the caller's room.
 */
const warmTransferIn =
  (vad: VAD): WarmTransfer =>
  async ({ line, agent }) => {
    try {
      await new workflows.WarmTransferTask({
        sipCallTo: line.to,
        sipTrunkId: line.sipTrunkId,
        sipNumber: line.fromNumber,
        ringingTimeout: line.ringingTimeoutSeconds * 1000,
        chatCtx: agent.chatCtx,
        llm: agent.llm ?? null,
        stt: agent.stt ?? null,
        tts: agent.tts ?? null,
        vad,
      }).run()
      return 'transferred'
    } catch (error) {
      log().warn({ error: String(error) }, 'warm transfer did not complete')
      return warmResultOf(error)
    }
  }

const startCall = async (ctx: JobContext<ProcessData>) => {
  const { apiUrl, workerToken, outboundAllowHosts } = configOnce()
  reporter.jobStarted(ctx.job.id)
  const api = createWorkerApi({ apiUrl, workerToken })
  const jobLogger = log().child({ jobId: ctx.job.id })

  // An inbound call exists only once the server opens it: the caller is in the room already.
  let dispatchText = ctx.job.metadata
  const inbound = readInboundJob(ctx.job.room?.name ?? '', ctx.job.metadata)
  if (inbound) {
    try {
      await ctx.connect()
      const caller = await ctx.waitForParticipant()
      const opened = await answerInbound({
        api,
        job: inbound,
        roomName: ctx.room.name ?? '',
        caller: { identity: caller.identity, attributes: { ...caller.attributes } },
        agentParticipantSid: ctx.room.localParticipant?.sid,
        say: async (refusal) => {
          if (!refusal.speech) return
          await loadProviders([refusal.speech])
          const session = new voice.AgentSession({ tts: buildSpeech(refusal.speech) })
          await session.start({
            agent: new voice.Agent({ instructions: '' }),
            room: ctx.room,
            inputOptions: { participantIdentity: caller.identity },
          })
          await sayRefusal(session, refusal)
        },
        hangUp: async (reason) => {
          await ctx.deleteRoom().catch(() => undefined)
          ctx.shutdown(reason)
        },
      })
      if (!opened) return
      dispatchText = JSON.stringify(opened)
    } catch (error) {
      jobLogger.error({ error: String(error) }, 'the inbound call could not open')
      await ctx.deleteRoom().catch(() => undefined)
      ctx.shutdown('inbound open failed')
      return
    }
  }

  const dispatch = readDispatch(dispatchText)
  if (!dispatch.ok) {
    jobLogger.error({ problem: dispatch.problem, callId: dispatch.callId }, 'dispatch metadata refused')
    if (dispatch.callId) await api.end(dispatch.callId, 'agent_error').catch(() => undefined)
    ctx.shutdown('invalid dispatch metadata')
    return
  }
  const { metadata } = dispatch
  const logger = jobLogger.child({ callId: metadata.callId })

  let call: CallSession
  try {
    // The setup first: the call is billed from the moment both the person and the agent are in the
    // room, so the agent joins only a call it can run.
    const setup = await api.setup(metadata.callId)
    // Only the plugins this call speaks are imported into its process (providers.ts).
    await loadProvidersFor(setup)
    // A phone call's keypad: tones sent as the agent's participant (RFC 4733 through LiveKit SIP).
    const keypad: Keypad | null =
      metadata.direction === 'web'
        ? null
        : {
            publishDtmf: async (code, digit) => {
              if (!ctx.room.localParticipant) throw new Error('not in the room')
              await ctx.room.localParticipant.publishDtmf(code, digit)
            },
            wait: (ms) => wait(ms).then(() => undefined),
          }
    // The SIP callee of an outbound call: answered once their call status is active.
    const callee = metadata.direction === 'outbound' ? metadata.sipParticipantIdentity : undefined
    call = buildCallSession({
      metadata,
      setup,
      services: {
        waitForAnswer: callee
          ? () =>
              waitForParticipantAttribute({
                room: ctx.room,
                identity: callee,
                attribute: 'sip.callStatus',
                value: 'active',
              })
          : null,
        api,
        allowHosts: outboundAllowHosts,
        vad: ctx.proc.userData.vad,
        shutdown: (reason) => ctx.shutdown(reason),
        logger,
        keypad,
        warmTransfer: warmTransferIn(ctx.proc.userData.vad),
      },
    })
    reporter.watch(call.session)
    if (!inbound) await ctx.connect()
    // The callee's dialing, ringing and answer become the call's events (sip-status.ts).
    if (callee)
      watchSipStatus({
        room: ctx.room,
        identity: callee,
        report: (status) => api.sipStatus(metadata.callId, status),
        onError: (error, status) =>
          logger.warn({ status, error: String(error) }, 'the callee’s SIP status was not reported'),
      })
  } catch (error) {
    logger.error({ error: String(error) }, 'the call could not start')
    await api.end(metadata.callId, 'agent_error').catch(() => undefined)
    ctx.shutdown('call setup failed')
    return
  }
  ctx.addShutdownCallback(async () => {
    await call.settled()
    // After the call's last requests (its end, the transcript): their spans and samples go too.
    await reporter.flush()
    await flushWorkerTraces()
  })

  // The agent speaks only once its person is in the room: the visitor of a web call, the SIP
  // callee of an outbound call, who joins when the phone is answered, or the inbound caller.
  const person = metadata.direction === 'web' ? metadata.userId : metadata.sipParticipantIdentity
  // The caller's key presses reach the agent as their input (a phone caller's only).
  ctx.room.on(RoomEvent.DtmfReceived, (_code: number, digit: string, participant?: RemoteParticipant) => {
    if (metadata.direction !== 'web' && (!person || participant?.identity === person)) call.keyPressed(digit)
  })
  try {
    await ctx.waitForParticipant(person ?? undefined)
    await call.session.start({
      agent: call.agent,
      room: ctx.room,
      inputOptions: person ? { participantIdentity: person } : {},
      // The widget's live captions read this stream (lk.transcription).
      outputOptions: { transcriptionEnabled: true },
    })
  } catch (error) {
    // The room went away before the person came, or a model would not start: nobody is served.
    logger.error({ error: String(error) }, 'the call could not start')
    await call.hangUp('agent_error')
    return
  }
  logger.info({ architecture: metadata.agent.architecture, direction: metadata.direction }, 'call started')
  // An outbound call: who answered, a person, a voicemail box or a phone menu (never throws).
  void call.detectAnsweringMachine()
}

export default defineAgent({
  // One VAD per process (LiveKit's local Silero, no network); its small model loads on the first audio.
  prewarm: async (proc: JobProcess<ProcessData>) => {
    proc.userData.vad = new inference.VAD()
    // Before any session exists: the framework's spans go through this provider from the start.
    const { tracing } = configOnce()
    if (tracing) await startWorkerTracing(tracing)
  },
  entry: (ctx: JobContext) => startCall(ctx as JobContext<ProcessData>),
})
