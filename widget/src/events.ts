/**
 * DOM events the element dispatches for the host page (they bubble and cross the shadow boundary):
 * - `parley:open`, `parley:close`: the panel opened or closed (by the visitor or by the API)
 * - `parley:message` { role: 'user' | 'assistant', content }: a message was sent or a reply finished
 * - `parley:conversation-end`: the conversation ended (by the agent, the visitor or `endConversation()`)
 * - `parley:error` { code }: something failed; `code` is the chat API's code or the widget's own
 *   (`network_error`, `rate_limited`, `stream_error`)
 */
export type ParleyEventDetail = {
  'parley:open': null
  'parley:close': null
  'parley:message': { role: 'user' | 'assistant'; content: string }
  'parley:conversation-end': null
  'parley:error': { code: string }
}

export type ParleyEventName = keyof ParleyEventDetail

export type Emit = <Name extends ParleyEventName>(name: Name, detail: ParleyEventDetail[Name]) => void

export const createEmitter =
  (target: EventTarget): Emit =>
  (name, detail) =>
    target.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }))
