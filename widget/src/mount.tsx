import type { Signal } from '@preact/signals'
import { render } from 'preact'
import { type ChatModel, createChatModel } from './chat/model.ts'
import { createSessionStore } from './chat/storage.ts'
import { createHttpTransport } from './chat/transport.ts'
import type { Emit } from './events.ts'
import { App, type AppProps } from './ui/app.tsx'

/** Who the widget talks to; changing any of these starts over with another conversation. */
export type Identity = { agentId: string; apiKey: string; baseUrl: string; userIdentifier: string | null }

/** How it looks; these change live without touching the conversation. */
export type View = Omit<AppProps, 'model' | 'onToggle'>

export type Mounted = { model: ChatModel; setOpen: (open: boolean) => void; unmount: () => void }

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
  const model = createChatModel({
    agentId: identity.agentId,
    transport: createHttpTransport(identity),
    ...(identity.userIdentifier ? { userIdentifier: identity.userIdentifier } : {}),
    // Keyed by API host too: two Parley deployments on one site must not swap tokens.
    store: createSessionStore(`parley:v1:${identity.baseUrl}:${identity.agentId}`),
    onEvent: (event) => {
      if (event.type === 'message') emit('parley:message', { role: event.role, content: event.content })
      else if (event.type === 'error') emit('parley:error', { code: event.code })
      else emit('parley:conversation-end', null)
    },
  })
  const onToggle = (open: boolean) => {
    if (open === model.isOpen.value) return
    model.setOpen(open)
    if (open) void model.start()
    emit(open ? 'parley:open' : 'parley:close', null)
  }
  // Reading view.value inside a component lets @preact/signals re-render just this tree on change.
  const Root = () => <App {...view.value} model={model} onToggle={onToggle} />
  render(<Root />, host)
  void model.resume()
  if (view.peek().position === 'inline') void model.start()
  return {
    model,
    setOpen: onToggle,
    unmount: () => {
      render(null, host)
      model.dispose()
    },
  }
}
