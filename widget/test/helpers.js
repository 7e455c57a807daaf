// Shared by the browser tests: settings injected by test/browser/run.ts, DOM helpers, assertions,
// and the test-only controls of the real server (the fake LLM's script, cut connections, counts).
import { emulateMedia, executeServerCommand } from '@web/test-runner-commands'

/**
 * @type {{ baseUrl: string, key: string, agentId: string, organizationId: string,
 *   supportAgentId: string, billingAgentId: string, secondAgentId: string, tabsAgentId: string,
 *   reloadAgentId: string, broke: { organizationId: string, agentId: string, widgetKey: string },
 *   voiceAgentId: string, liveKit: { baseUrl: string, key: string, voiceAgentId: string } }}
 */
export const settings = window.PARLEY_TEST

/** A widget on the real chat API; the Support Bot fixture unless the test names another agent. */
export const createWidget = (attributes = {}) => {
  const widget = document.createElement('parley-widget')
  const all = {
    'agent-id': settings.supportAgentId,
    key: settings.key,
    'base-url': settings.baseUrl,
    ...attributes,
  }
  for (const [name, value] of Object.entries(all)) widget.setAttribute(name, value)
  document.body.append(widget)
  return widget
}

export const greetingOf = (name) => `Hello from ${name}!`

export const find = (widget, selector) => widget.shadowRoot.querySelector(selector)
export const findAll = (widget, selector) => [...widget.shadowRoot.querySelectorAll(selector)]
export const textOf = (widget, selector) => find(widget, selector)?.textContent ?? ''
export const messages = (widget) =>
  findAll(widget, '.message:not(.typing)').map((element) => element.textContent)

/** Polls `check` until it is truthy; `message` may be a function describing what was seen instead. */
export const waitFor = async (check, { timeout = 8000, message = 'condition' } = {}) => {
  const started = Date.now()
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() - started > timeout)
      throw new Error(`timed out waiting for ${typeof message === 'function' ? message() : message}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

export const assert = (condition, message) => {
  if (!condition) throw new Error(message)
}

export const equal = (actual, expected, message = '') => {
  const a = JSON.stringify(actual)
  const b = JSON.stringify(expected)
  if (a !== b) throw new Error(`${message} expected ${b}, got ${a}`)
}

/** Waits until the composer takes a message, types into it and presses Enter. */
export const type = async (widget, text) => {
  await waitFor(() => !find(widget, '[part~="stop"]') && !find(widget, 'textarea')?.disabled, {
    message: 'composer ready',
  })
  const input = find(widget, 'textarea')
  input.value = text
  input.dispatchEvent(new Event('input', { bubbles: true }))
  input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }))
}

/** The session the widget keeps in localStorage for an agent: {conversationId, sessionToken, …}. */
export const storedSession = (agentId = settings.supportAgentId) =>
  JSON.parse(localStorage.getItem(`parley:v1:${settings.baseUrl}:${agentId}`) ?? 'null')

/** A call to the real chat API with a session token, as the widget makes it. */
export const chatApi = (session, path, init = {}) =>
  fetch(`${settings.baseUrl}/v1/chat/sessions/${session.conversationId}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${session.sessionToken}`, 'content-type': 'application/json' },
  })

const control = async (path, body) => {
  const response = await fetch(`${settings.baseUrl}/test-control${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  })
  return response.json()
}

/**
 * What the fake LLM answers, one reply per model round, when the visitor's last message is `when`
 * (anything unscripted is echoed as "You said: …"). A reply's `hold: {atChunk, name}` pauses it
 * before that text chunk until `release(name)`.
 */
export const scriptLlm = (when, ...replies) => control('/llm', { when, replies })
export const release = (name) => control('/llm/release', { name })
/** The tool results the model received after the visitor's message `when`. */
export const toolResults = (when) => control(`/llm/tool-results?when=${encodeURIComponent(when)}`)
/** Destroys, server side, the socket of the conversation's latest send-message stream. */
export const dropStream = (conversationId) => control('/drop', { conversation_id: conversationId })
/** The Idempotency-Key and Last-Event-ID of every send-message request of a conversation. */
export const sendsOf = (conversationId) => control(`/sends/${conversationId}`)
/** How many conversation rows the server holds for an agent. */
export const conversationCount = async (agentId) =>
  (await control(`/conversations?agent_id=${encodeURIComponent(agentId)}`)).count
/** A call to the real operator API (/admin/...), which the control route makes with ADMIN_TOKEN. */
export const operator = (method, path, body) => control('/operator', { method, path, body })

/** Saves test-output/widget/<name>.png once the reply has finished and nothing is mid-animation. */
export const screenshot = async (widget, name, { colorScheme = 'light' } = {}) => {
  await waitFor(() => find(widget, '[part~="send"]'), { message: 'reply finished before the screenshot' })
  // One call with every feature: each emulateMedia call replaces the features set before it.
  await emulateMedia({ reducedMotion: 'reduce', colorScheme })
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))
  await executeServerCommand('parley-screenshot', { name })
}

export const cleanUp = () => {
  for (const widget of document.querySelectorAll('parley-widget')) widget.remove()
  for (const frame of document.querySelectorAll('iframe')) frame.remove()
  localStorage.clear()
}
