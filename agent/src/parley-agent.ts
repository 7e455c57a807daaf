import { type llm, voice } from '@livekit/agents'
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
  readonly #knowledgeFor: ((words: string) => Promise<string | null>) | null
  readonly #greetWhen: Promise<boolean> | null
  /** The passages of the person's latest message, looked up once however many model calls it takes. */
  #turnKnowledge: { messageId: string; instruction: Promise<string | null> } | null = null

  constructor({
    runtime,
    wording,
    arrival,
    knowledgeFor = null,
    greetWhen = null,
    ...options
  }: Omit<voice.AgentOptions<unknown>, 'instructions' | 'id'> & {
    runtime: AgentRuntimeConfig
    wording: Wording
    arrival: Arrival
    /** An agent with knowledge sources: the instruction with the passages for the person's words. */
    knowledgeFor?: ((words: string) => Promise<string | null>) | null
    /**
     * An outbound call's first agent greets once answering-machine detection heard a person (true);
     * a machine is not greeted (false).
     */
    greetWhen?: Promise<boolean> | null
  }) {
    super({ ...options, id: runtime.id, instructions: wording.instructions })
    this.runtime = runtime
    this.wording = wording
    this.#arrival = arrival
    this.#knowledgeFor = knowledgeFor
    this.#greetWhen = greetWhen
  }

  /**
   * As a chat reply: the passages found for the person's latest message go to the model with the
   * answer-from-these instruction, for this reply only (they are not kept in the conversation).
   * A realtime model has no such step; it has the search_knowledge tool.
   */
  override async llmNode(
    chatCtx: llm.ChatContext,
    toolCtx: llm.ToolContext,
    modelSettings: voice.ModelSettings,
  ): ReturnType<voice.Agent['llmNode']> {
    const lastUser = this.#knowledgeFor
      ? chatCtx.items.findLast((item) => item.type === 'message' && item.role === 'user')
      : undefined
    if (!this.#knowledgeFor || lastUser?.type !== 'message')
      return voice.Agent.default.llmNode(this, chatCtx, toolCtx, modelSettings)
    if (this.#turnKnowledge?.messageId !== lastUser.id)
      this.#turnKnowledge = {
        messageId: lastUser.id,
        instruction: this.#knowledgeFor(lastUser.textContent ?? ''),
      }
    const instruction = await this.#turnKnowledge.instruction
    if (!instruction) return voice.Agent.default.llmNode(this, chatCtx, toolCtx, modelSettings)
    const withPassages = chatCtx.copy()
    withPassages.addMessage({ role: 'system', content: instruction })
    return voice.Agent.default.llmNode(this, withPassages, toolCtx, modelSettings)
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
    if (this.#greetWhen) {
      void this.#greetWhen.then((person) => {
        if (person) this.#greet()
      })
      return
    }
    this.#greet()
  }

  #greet() {
    if (this.wording.greeting) this.speak(this.wording.greeting)
    else this.session.generateReply({ instructions: GREET })
  }
}
