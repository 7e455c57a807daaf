import { effect, type Signal, signal } from '@preact/signals'
import { render } from 'preact'
import { type ChatModel, createChatModel } from './chat/model.ts'
import { createSessionStore } from './chat/storage.ts'
import { createHttpTransport } from './chat/transport.ts'
import { importChunk, loadPanel, type PanelChunk, whenIdle } from './chunks.ts'
import type { Credentials } from './credentials.ts'
import type { Emit } from './events.ts'
import { loadStrings } from './strings.ts'
import { App, type AppProps } from './ui/app.tsx'
import type { VoiceChunk } from './voice/contract.ts'
import { createVoiceModel, type VoiceModel } from './voice/model.ts'

/** Who the widget talks to; changing any of these starts over with another conversation. */
export type Identity = Credentials & {
  agentId: string
  baseUrl: string
  userIdentifier: string | null
  /** The owner's server's HMAC of userIdentifier: without it the identifier recalls no memory. */
  userHash: string | null
  /** The pipeline or realtime agent of voice calls; null: no microphone button. */
  voiceAgentId: string | null
}

/** How it looks; these change live without touching the conversation. */
export type View = Omit<AppProps, 'model' | 'onToggle' | 'voice' | 'Panel' | 'onWarm'>

export type Mounted = {
  model: ChatModel
  voice: VoiceModel | null
  setOpen: (open: boolean) => void
  unmount: () => void
}

/** The voice chunk (livekit-client) comes from beside the widget's script, on the first call only. */
const createVoice = (identity: Identity, view: Signal<View>, model: ChatModel, emit: Emit) => {
  const { baseUrl, apiKey, studioToken, voiceAgentId } = identity
  if (!voiceAgentId) return null
  return createVoiceModel({
    load: () => importChunk<VoiceChunk>(__PARLEY_VOICE_CHUNK__, baseUrl),
    baseUrl,
    apiKey,
    studioToken,
    agentId: voiceAgentId,
    isPushToTalk: () => view.peek().voiceInput === 'push-to-talk',
    // A widget with a text agent of its own keeps one conversation across typing and talking: the
    // call continues the chat session (opened now if the visitor has not typed yet).
    continues: async () => (voiceAgentId === identity.agentId ? null : model.start()),
    onCaption: model.caption,
    // The voice-first panel has no chat session to name its agent: the voice session does.
    onAgentName: (name) => {
      model.agentName.value ||= name
    },
    onState: (state, reason) => emit('parley:voice-state', reason ? { state, reason } : { state }),
  })
}

/**
 * Renders one widget into `host` and returns how to undo everything it started (model, channel,
 * timers, effects, DOM), also when called while the stored conversation is still being restored.
 */
export const mount = ({
  host,
  identity,
  view,
  emit,
}: {
  host: ShadowRoot
  identity: Identity
  view: Signal<View>
  emit: Emit
}): Mounted => {
  const { baseUrl } = identity
  let isMounted = true
  const model = createChatModel({
    agentId: identity.agentId,
    transport: createHttpTransport({
      ...identity,
      openStream: async () => (await loadPanel(baseUrl)).fetchEventSource,
    }),
    ...(identity.userIdentifier ? { userIdentifier: identity.userIdentifier } : {}),
    // Keyed by API host too: two Parley deployments on one site must not swap tokens.
    store: createSessionStore(`parley:v1:${baseUrl}:${identity.agentId}${identity.draft ? ':draft' : ''}`),
    onEvent: (event) => {
      if (event.type === 'message') emit('parley:message', { role: event.role, content: event.content })
      else if (event.type === 'error') emit('parley:error', { code: event.code })
      else emit('parley:conversation-end', null)
    },
  })
  const voice = createVoice(identity, view, model, emit)
  // The open panel's components and styles: a chunk of their own (chunks.ts), here once loaded.
  const panel = signal<PanelChunk['Panel'] | null>(null)
  /** Loads the panel chunk (at once if loaded already); its sheet is adopted before the panel renders. */
  const warmPanel = () =>
    loadPanel(baseUrl).then((chunk) => {
      if (!isMounted) return
      if (!host.adoptedStyleSheets.includes(chunk.sheet))
        host.adoptedStyleSheets = [...host.adoptedStyleSheets, chunk.sheet]
      panel.value = chunk.Panel
    })
  // The voice-first variant opens no chat session until the visitor types.
  const startChat = () => {
    if (view.peek().mode !== 'voice') void model.start()
  }
  const onToggle = (open: boolean) => {
    if (open === model.isOpen.value) return
    model.setOpen(open)
    if (open) startChat()
    emit(open ? 'parley:open' : 'parley:close', null)
    // A chunk that cannot be fetched leaves nothing to show: the panel closes, a click tries again.
    if (open)
      warmPanel().catch(() => {
        emit('parley:error', { code: 'network_error' })
        onToggle(false)
      })
  }
  const onWarm = () => void warmPanel().catch(() => {})
  // Reading view.value inside a component lets @preact/signals re-render just this tree on change.
  const Root = () => (
    <App
      {...view.value}
      model={model}
      voice={voice}
      Panel={panel.value}
      onToggle={onToggle}
      onWarm={onWarm}
    />
  )
  render(<Root />, host)
  whenIdle(onWarm)
  const stopEffects = effect(() => {
    // A widget in Urdu or Sindhi (now or after a `lang` change) fetches those words once.
    if (view.value.language !== 'en') void loadStrings(baseUrl)
    // A chat session said this deployment has no voice: the microphone goes.
    if (voice && model.isVoiceOff.value) voice.isOff.value = true
  })
  void model.resume()
  if (view.peek().position === 'inline') {
    startChat()
    warmPanel().catch(() => emit('parley:error', { code: 'network_error' }))
  }
  return {
    model,
    voice,
    setOpen: onToggle,
    unmount: () => {
      isMounted = false
      stopEffects()
      render(null, host)
      voice?.dispose()
      model.dispose()
    },
  }
}
