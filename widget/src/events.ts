import type { VoiceFailure } from './voice/contract.ts'
import type { VoiceState } from './voice/model.ts'

/**
 * DOM events the element dispatches for the host page (they bubble and cross the shadow boundary):
 * - `parley:open`, `parley:close`: the panel opened or closed (by the visitor or by the API)
 * - `parley:message` { role: 'user' | 'assistant', content }: a message was sent or a reply finished
 * - `parley:conversation-end`: the conversation ended (by the agent, the visitor or `endConversation()`)
 * - `parley:error` { code }: something failed; `code` is the chat API's code or the widget's own
 *   (`network_error`, `rate_limited`, `stream_error`)
 * - `parley:voice-state` { state, reason? }: a voice call moved to `connecting` (until the agent
 *   has joined), `listening`, `agent-speaking`, `muted`, `reconnecting` or `ended`; an `ended` that
 *   was not asked for carries the reason (`mic_denied`, `no_device`, `webrtc_blocked`,
 *   `media_error`, `insufficient_credits`, `agent_unavailable`, `network`, `error`)
 */
export type ParleyEventDetail = {
  'parley:open': null
  'parley:close': null
  'parley:message': { role: 'user' | 'assistant'; content: string }
  'parley:conversation-end': null
  'parley:error': { code: string }
  'parley:voice-state': { state: Exclude<VoiceState, 'idle'>; reason?: VoiceFailure }
}

export type ParleyEventName = keyof ParleyEventDetail

export type Emit = <Name extends ParleyEventName>(name: Name, detail: ParleyEventDetail[Name]) => void

export const createEmitter =
  (target: EventTarget): Emit =>
  (name, detail) =>
    target.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }))
