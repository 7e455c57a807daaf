// Shared by the browser tests: settings injected by test/browser/run.ts, DOM helpers, assertions.
import { emulateMedia, executeServerCommand } from '@web/test-runner-commands'

/** @type {{ baseUrl: string, standInUrl: string, key: string, agentId: string }} */
export const settings = window.PARLEY_TEST

export const createWidget = (attributes = {}) => {
  const widget = document.createElement('parley-widget')
  // The scripted stand-in unless a test names the real API's base-url.
  const all = { 'agent-id': 'agent-1', key: settings.key, 'base-url': settings.standInUrl, ...attributes }
  for (const [name, value] of Object.entries(all)) widget.setAttribute(name, value)
  document.body.append(widget)
  return widget
}

export const find = (widget, selector) => widget.shadowRoot.querySelector(selector)
export const findAll = (widget, selector) => [...widget.shadowRoot.querySelectorAll(selector)]
export const textOf = (widget, selector) => find(widget, selector)?.textContent ?? ''
export const messages = (widget) =>
  findAll(widget, '.message:not(.typing)').map((element) => element.textContent)

export const waitFor = async (check, { timeout = 8000, message = 'condition' } = {}) => {
  const started = Date.now()
  for (;;) {
    const value = check()
    if (value) return value
    if (Date.now() - started > timeout) throw new Error(`timed out waiting for ${message}`)
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

export const stats = async () => (await fetch(`${settings.standInUrl}/v1/chat/stats`)).json()

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
