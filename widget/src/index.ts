import { setChunkDirectory } from './chunks.ts'
import { createWidgetElement } from './element.tsx'

/**
 * The loader: defines `<parley-widget>` and, when the script tag itself carries `data-agent-id` and
 * `data-key`, places one on the page. Nothing else is added to `window`.
 */
const script = document.currentScript instanceof HTMLScriptElement ? document.currentScript : null
const scriptOrigin = script?.src ? new URL(script.src).origin : location.origin
if (script?.src) setChunkDirectory(script.src)

if (!customElements.get('parley-widget'))
  customElements.define('parley-widget', createWidgetElement(scriptOrigin))

const placeFromScript = (tag: HTMLScriptElement) => {
  const { agentId, key } = tag.dataset
  if (!agentId || !key) return
  const widget = document.createElement('parley-widget')
  for (const [name, value] of Object.entries(tag.dataset)) {
    if (value !== undefined)
      widget.setAttribute(
        name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`),
        value,
      )
  }
  document.body.append(widget)
}

if (script) {
  if (document.body) placeFromScript(script)
  else document.addEventListener('DOMContentLoaded', () => placeFromScript(script), { once: true })
}
