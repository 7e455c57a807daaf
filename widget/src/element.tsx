import { type Signal, signal } from '@preact/signals'
import { createEmitter } from './events.ts'
import { resolveLanguage } from './i18n.ts'
import { type Identity, type Mounted, mount, type View } from './mount.tsx'
import css from './ui/styles.css?inline'

// `mode` is both: mode="voice" makes agent-id the voice agent when voice-agent-id is absent.
const IDENTITY_ATTRIBUTES = [
  'agent-id',
  'key',
  'api-key',
  'base-url',
  'user-identifier',
  'user-hash',
  'agent-version',
  'voice-agent-id',
  'mode',
]
const VIEW_ATTRIBUTES = ['lang', 'theme', 'position', 'accent', 'suggestions', 'mode', 'voice-input']

let sheet: CSSStyleSheet | undefined
/** One constructable stylesheet shared by every instance: no <style> text, so strict CSPs allow it. */
const styles = () => {
  if (!sheet) {
    sheet = new CSSStyleSheet()
    sheet.replaceSync(css)
  }
  return sheet
}

const readSuggestions = (raw: string | null): string[] => {
  try {
    const value: unknown = JSON.parse(raw ?? '[]')
    return Array.isArray(value)
      ? value.filter((item): item is string => typeof item === 'string').slice(0, 6)
      : []
  } catch {
    return []
  }
}

const readPosition = (raw: string | null): View['position'] =>
  raw === 'inline'
    ? 'inline'
    : raw === 'bottom-left' || raw === 'bottom-start' || raw === 'start'
      ? 'start'
      : 'end'

/** Creates the `<parley-widget>` class; `defaultBaseUrl` is where the script itself was served from. */
export const createWidgetElement = (defaultBaseUrl: string) =>
  class ParleyWidget extends HTMLElement {
    static observedAttributes = [...IDENTITY_ATTRIBUTES, ...VIEW_ATTRIBUTES, 'open']
    #mounted: Mounted | null = null
    #identity = ''
    #studioToken = ''
    #view: Signal<View> = signal(this.#readView())

    connectedCallback() {
      if (!this.shadowRoot) this.attachShadow({ mode: 'open' }).adoptedStyleSheets = [styles()]
      this.#remount()
    }

    disconnectedCallback() {
      this.#mounted?.unmount()
      this.#mounted = null
      this.#identity = ''
    }

    attributeChangedCallback(name: string, previous: string | null, next: string | null) {
      if (!this.isConnected || previous === next) return
      if (name === 'open') return this.#mounted?.setOpen(next !== null)
      if (VIEW_ATTRIBUTES.includes(name)) this.#view.value = this.#readView()
      if (IDENTITY_ATTRIBUTES.includes(name)) this.#remount()
    }

    /**
     * A studio session token in place of a widget key (the studio's Try it panel and preview):
     * settable from script only, so it never shows in markup or in a copied tag.
     */
    set studioToken(token: string) {
      this.#studioToken = String(token ?? '')
      if (this.isConnected) this.#remount()
    }

    /** Opens the panel (and starts or resumes the conversation). */
    open() {
      this.#mounted?.setOpen(true)
    }
    close() {
      this.#mounted?.setOpen(false)
    }
    toggle() {
      this.#mounted?.setOpen(!this.#mounted.model.isOpen.value)
    }
    /** Sends a message as if the visitor typed it; resolves false when it could not be sent. */
    async send(text: string) {
      return (await this.#mounted?.model.send(String(text))) ?? false
    }
    async endConversation() {
      await this.#mounted?.model.endConversation()
    }
    /** Opens the panel and starts a voice call (needs voice-agent-id or mode="voice"). */
    async startVoice() {
      this.open()
      await this.#mounted?.voice?.start()
    }
    endVoice() {
      this.#mounted?.voice?.end()
    }

    #readIdentity(): Identity | null {
      const agentId = this.getAttribute('agent-id')
      const apiKey = this.getAttribute('key') ?? this.getAttribute('api-key') ?? ''
      const studioToken = this.#studioToken
      if (!agentId || !(apiKey || studioToken)) return null
      const baseUrl = this.getAttribute('base-url') || defaultBaseUrl
      const voiceAgentId =
        this.getAttribute('voice-agent-id') || (this.getAttribute('mode') === 'voice' ? agentId : null)
      const userIdentifier = this.getAttribute('user-identifier')
      const userHash = this.getAttribute('user-hash')
      const draft = this.getAttribute('agent-version') === 'draft'
      return { agentId, apiKey, studioToken, draft, baseUrl, userIdentifier, userHash, voiceAgentId }
    }

    #readView(): View {
      const theme = this.getAttribute('theme')
      return {
        language: resolveLanguage(this.getAttribute('lang') ?? document.documentElement.lang),
        theme: theme === 'light' || theme === 'dark' ? theme : 'auto',
        position: readPosition(this.getAttribute('position')),
        accent: this.getAttribute('accent'),
        suggestions: readSuggestions(this.getAttribute('suggestions')),
        mode: this.getAttribute('mode') === 'voice' ? 'voice' : 'chat',
        voiceInput: this.getAttribute('voice-input') === 'push-to-talk' ? 'push-to-talk' : 'toggle',
      }
    }

    #remount() {
      const identity = this.#readIdentity()
      const key = JSON.stringify(identity)
      if (key === this.#identity && this.#mounted) return
      this.#mounted?.unmount()
      this.#mounted = null
      this.#identity = key
      this.#view.value = this.#readView()
      if (!identity || !this.shadowRoot) return
      this.#mounted = mount({ host: this.shadowRoot, identity, view: this.#view, emit: createEmitter(this) })
      if (this.hasAttribute('open')) this.#mounted.setOpen(true)
    }
  }
