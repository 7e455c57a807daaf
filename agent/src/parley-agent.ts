import { voice } from '@livekit/agents'
import type { AgentRuntimeConfig } from '@parley/shared'
import type { Wording } from './prompt.ts'

/** How the agent came into the call: it opened it, or a handoff brought it in mid-conversation. */
export type Arrival = 'call-start' | 'handoff'

const GREET = 'Open the call with one short greeting and offer your help.'

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

  /** agentFirst greets (its greeting, or one the model makes up); a handed-over agent answers on. */
  override async onEnter(): Promise<void> {
    if (this.#arrival === 'handoff') {
      this.session.generateReply()
      return
    }
    if (this.runtime.greetingType === 'userFirst') return
    if (this.wording.greeting) this.speak(this.wording.greeting)
    else this.session.generateReply({ instructions: GREET })
  }
}
