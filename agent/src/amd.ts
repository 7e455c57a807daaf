import { llm, type log, type stt, voice } from '@livekit/agents'
import type { AmdVerdict, VoicemailSetting } from '@parley/shared'
import type { ParleyAgent } from './parley-agent.ts'
import type { Keypad } from './tools/send-dtmf.ts'
import { SEND_DTMF_TOOL, sendDtmfTool } from './tools/send-dtmf.ts'
import type { EndReason } from './worker-api.ts'

type Logger = ReturnType<typeof log>

/**
 * Resolves once the callee has answered (their SIP participant's `sip.callStatus` is `active`),
 * rejects when the call ends first. The job's waits on the room's participant attribute; the
 * tests' is a promise they resolve.
 */
export type WaitForAnswer = () => Promise<void>

/** The framework's categories in the shared vocabulary the server stores. */
export const verdictOf = (category: voice.AMDCategory | string): AmdVerdict => {
  switch (category) {
    case voice.AMDCategory.HUMAN:
      return 'human'
    case voice.AMDCategory.MACHINE_VM:
      return 'voicemail'
    case voice.AMDCategory.MACHINE_IVR:
      return 'phone_menu'
    case voice.AMDCategory.MACHINE_UNAVAILABLE:
      return 'unavailable'
    default:
      return 'uncertain'
  }
}

/** What the agent is told when a phone menu answered and it is to get through it. */
export const phoneMenuInstructions = (menu: string) =>
  [
    'A phone menu (an automated system), not a person, answered this call. It said:',
    JSON.stringify(menu),
    `Get through it to a person who can help with the purpose of this call: press the right keys with ${SEND_DTMF_TOOL}, or say a short answer when the menu asks for one. Do not greet or talk to the menu otherwise. Once a person answers, introduce yourself and go on as your instructions say.`,
  ].join('\n')

/** How the call goes on after detection: the conversation, or an end with its reason. */
export type AmdAction =
  | { kind: 'converse' }
  | { kind: 'navigate' }
  | { kind: 'leave_message'; message: string }
  | { kind: 'end'; reason: EndReason }

/** The agent's voicemail setting applied to a verdict. */
export const actionFor = (
  verdict: AmdVerdict,
  setting: VoicemailSetting,
  message: string | null,
): AmdAction => {
  switch (verdict) {
    case 'voicemail':
      return setting.action === 'leave_message' && message
        ? { kind: 'leave_message', message }
        : { kind: 'end', reason: 'voicemail_hung_up' }
    case 'phone_menu':
      return setting.onPhoneMenu === 'navigate' ? { kind: 'navigate' } : { kind: 'end', reason: 'phone_menu' }
    // A box that takes no message (full, not set up): nothing to leave, nobody to talk to.
    case 'unavailable':
      return { kind: 'end', reason: 'voicemail_hung_up' }
    default:
      return { kind: 'converse' }
  }
}

/**
 * A realtime agent's detection models (its speech-to-speech model has no text completion): the
 * classifier's text LLM, and the STT that hears the callee on a side stream of the room audio
 * (null: the realtime model's own transcription of the callee is classified).
 */
export type DetectionModels = { llm: llm.LLM; stt: stt.STT | null }

export type AmdRun = {
  verdict: AmdVerdict
  action: AmdAction
  /** What the callee's side said while detection listened. */
  transcript: string
}

/**
 * Answering-machine detection on an outbound phone call, with the framework's `voice.AMD` on the
 * agent's own LLM (its classification prompt and `save_prediction` tool) and the session's own STT
 * transcripts (no hosted inference). Started once the callee answered; while it listens the
 * session holds its replies (the framework pauses reply authorization) and the agent holds its
 * greeting. A machine's verdict waits for the greeting to end (the framework's end-of-turn gate),
 * then:
 *  - human or uncertain: the greeting is said and the conversation goes on;
 *  - voicemail: the message is left and the call ends `voicemail_left`, or it ends `voicemail_hung_up`;
 *  - phone menu: the agent gets `send_dtmf` and is told to get through, or the call ends `phone_menu`;
 *  - unavailable (a box that takes no message): the call ends `voicemail_hung_up`.
 * Every end carries the verdict (`end` sends it as `amdVerdict`). Never throws: a detection that
 * fails counts as uncertain, and the conversation goes on.
 *
 * A realtime agent's model cannot classify: the same detector runs on `models` instead, its STT
 * (when given) on the framework's side stream of the callee's audio (`session._subscribeAudioStream`),
 * its transcripts only; the realtime model's replies are held as a pipeline's are.
 */
export const detectAnsweringMachine = async ({
  session,
  agent,
  setting,
  message,
  waitForAnswer,
  keypad,
  participantIdentity,
  verdictReached,
  end,
  logger,
  models = null,
  endOfTurnMs,
}: {
  session: voice.AgentSession
  agent: ParleyAgent
  setting: VoicemailSetting
  /** The voicemail message with its placeholders filled (null: none). */
  message: string | null
  waitForAnswer: WaitForAnswer
  /** The phone keypad send_dtmf presses (null: a menu cannot be navigated, so it is hung up on). */
  keypad: Keypad | null
  /** The SIP callee's participant identity: detection listens to them only. */
  participantIdentity?: string
  /** Told the verdict first: the call's later ends carry it, a human hears the greeting. */
  verdictReached: (verdict: AmdVerdict, greet: boolean) => void
  /** Ends the call with a reason (no last message: a machine is not said goodbye to). */
  end: (reason: EndReason) => Promise<void>
  logger: Logger
  /** A realtime agent's detection models (null: the agent's own LLM and the session's STT). */
  models?: DetectionModels | null
  /** The wait after the callee's last words when no VAD ends their speech (CallServices.amdEndOfTurnMs). */
  endOfTurnMs?: number
}): Promise<AmdRun> => {
  let verdict: AmdVerdict = 'uncertain'
  let transcript = ''
  try {
    await waitForAnswer()
  } catch (error) {
    // Nobody answered (the callee hung up, the room closed): nothing to detect, nobody to greet.
    logger.info({ error: String(error) }, 'the call ended before it was answered')
    return { verdict, action: { kind: 'converse' }, transcript }
  }
  try {
    const own = agent.llm instanceof llm.LLM ? agent.llm : null
    // A realtime model has no text completion: its detection models classify, or nothing does.
    const model = own ?? models?.llm
    if (!model) throw new Error('the agent has no text model to classify with')
    const amd = new voice.AMD(session, {
      llm: model,
      // A pipeline's session STT transcripts (null), a realtime agent's side STT; never LiveKit Cloud's.
      stt: own ? null : (models?.stt ?? null),
      ...(participantIdentity ? { participantIdentity } : {}),
      ...(endOfTurnMs === undefined ? {} : { maxEndpointingDelayMs: endOfTurnMs }),
      // Ours may be any catalogue model: the warning would be said on every call.
      suppressCompatibilityWarning: true,
    })
    // A person (or nobody sure) hears the agent's greeting, which answers their first words: a
    // reply the session held while detection listened (a realtime model's own reply to their
    // "Hello?", a pipeline's) is dropped unsaid before replies resume; their words stay in the
    // conversation. Machines' held replies the framework drops itself (interruptOnMachine).
    if (agent.runtime.greetingType === 'agentFirst')
      amd.on('amd_prediction', (prediction) => {
        if (prediction.isMachine) return
        try {
          session.interrupt({ force: true }).await.catch(() => undefined)
        } catch (error) {
          logger.debug({ error: String(error) }, 'held replies not dropped')
        }
      })
    try {
      const result = await amd.execute()
      verdict = verdictOf(result.category)
      transcript = result.transcript
      logger.info({ verdict, reason: result.reason, speechMs: result.speechDurationMs }, 'who answered')
    } finally {
      await amd.aclose()
    }
  } catch (error) {
    logger.warn({ error: String(error) }, 'answering-machine detection did not run; carrying on')
  }
  const wanted = actionFor(verdict, setting, message)
  const action: AmdAction =
    wanted.kind === 'navigate' && !keypad ? { kind: 'end', reason: 'phone_menu' } : wanted
  verdictReached(verdict, action.kind === 'converse')
  try {
    switch (action.kind) {
      case 'converse':
        break
      case 'navigate': {
        const tools = agent.toolCtx
        if (keypad && !tools.functionTools[SEND_DTMF_TOOL])
          await agent.updateTools([...tools.tools, sendDtmfTool({ keypad })])
        session.generateReply({ instructions: phoneMenuInstructions(transcript) })
        break
      }
      case 'leave_message':
        await agent.speak(action.message).waitForPlayout()
        await end('voicemail_left')
        break
      case 'end':
        await end(action.reason)
        break
    }
  } catch (error) {
    logger.warn({ error: String(error), action: action.kind }, 'after detection the call did not go as set')
  }
  return { verdict, action, transcript }
}
