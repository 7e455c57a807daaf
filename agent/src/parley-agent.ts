import { voice } from '@livekit/agents'
import type { AgentRuntimeConfig } from '@parley/shared'
import type { Wording } from './prompt.ts'

/**
 * How the agent came into the call: it opened it, a handoff brought it in mid-call, or the call
 * continues a chat conversation the visitor was typing in.
 */
export type Arrival = 'call-start' | 'handoff' | 'continuation'

const GREET = 'Open the call with one short greeting and offer your help.'
const CONTINUE =
  'The person was typing to you and has just switched to a voice call. Say one short sentence that ' +
  'picks up where the conversation left off; do not greet them as if for the first time.'

/** One of the organization's voice agents in a call: its settings, its wording and its models. */
export class ParleyAgent extends voice.Agent {
  readonly runtime: AgentRuntimeConfig
  readonly wording: Wording
  readonly #arrival: Arrival

  constructor({
    runtime,
    wording,
    arrival,
    ...options
  }: Omit<voice.AgentOptions<unknown>, 'instructions' | 'id'> & {
    runtime: AgentRuntimeConfig
    wording: Wording
    arrival: Arrival
  }) {
    super({ ...options, id: runtime.id, instructions: wording.instructions })
    this.runtime = runtime
    this.wording = wording
    this.#arrival = arrival
  }

  /**
   * Says `text` word for word. A pipeline agent's TTS speaks it; a realtime model has no text
   * input for speech, so it is asked to say exactly that.
   */
  speak(text: string): voice.SpeechHandle {
    if (this.runtime.architecture === 'realtime') {
      return this.session.generateReply({
        instructions: `Say exactly the following, word for word, and nothing else: ${JSON.stringify(text)}`,
      })
    }
    return this.session.say(text)
  }

  /**
   * agentFirst greets (its greeting, or one the model makes up), or, continuing a chat, picks up
   * its thread; a handed-over agent answers on.
   */
  override async onEnter(): Promise<void> {
    if (this.#arrival === 'handoff') {
      this.session.generateReply()
      return
    }
    if (this.runtime.greetingType === 'userFirst') return
    if (this.#arrival === 'continuation') {
      this.session.generateReply({ instructions: CONTINUE })
      return
    }
    if (this.wording.greeting) this.speak(this.wording.greeting)
    else this.session.generateReply({ instructions: GREET })
  }
}
