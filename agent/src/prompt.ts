import { fieldsAsText, fillPlaceholders } from '@parley/platform'
import { type AgentRuntimeConfig, languageNames } from '@parley/shared'

/** What the agent says and is told, with `{{field}}` placeholders filled. */
export type Wording = {
  instructions: string
  greeting: string | null
  lastMessage: string | null
  /** The message left on a voicemail box (an outbound call's voicemail setting). */
  voicemailMessage: string | null
}

const VOICE_STYLE =
  'You are speaking on a voice call: answer in short spoken sentences, without lists, markdown or emoji.'

const nameOf = (code: string) => languageNames[code as keyof typeof languageNames] ?? code

const languageRule = (languages: readonly string[]) => {
  const [main, ...others] = languages
  if (!main) return null
  const also = others.length > 0 ? ` The caller may also speak ${others.map(nameOf).join(' or ')}.` : ''
  return `Speak ${nameOf(main)}.${also}`
}

/**
 * The agent's wording for this call. The server fills a batch contact's placeholders before it
 * dispatches, so this fills only what is left (an agent reached by a handoff, whose texts the
 * server did not fill), with the server's own rule: a placeholder no field answers says nothing.
 */
export const wordingFor = (
  agent: AgentRuntimeConfig,
  contact: Record<string, unknown> | undefined,
  /** What the agent remembers of the person (the call setup's memory), as chat puts it. */
  memory: string | null = null,
): Wording => {
  const fields = fieldsAsText(contact ?? {})
  const fill = (text: string | null) => (text === null ? null : fillPlaceholders(text, fields).text)
  const instructions = [
    fill(agent.prompt) ?? `You are ${agent.name}, a helpful assistant.`,
    memory ? `What you remember about this person from earlier conversations:\n${memory}` : null,
    VOICE_STYLE,
    languageRule(agent.languages),
  ]
  return {
    instructions: instructions.filter(Boolean).join('\n\n'),
    greeting: fill(agent.greeting)?.trim() || null,
    lastMessage: fill(agent.lastMessage)?.trim() || null,
    voicemailMessage: fill(agent.voicemail.message)?.trim() || null,
  }
}
