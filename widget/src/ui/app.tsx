import { useLayoutEffect, useRef } from 'preact/hooks'
import type { ChatModel } from '../chat/model.ts'
import type { PanelChunk } from '../chunks.ts'
import { directionOf, type Language } from '../i18n.ts'
import { stringsFor } from '../strings.ts'
import type { VoiceModel } from '../voice/model.ts'
import { Launcher } from './launcher.tsx'

export type AppProps = {
  model: ChatModel
  language: Language
  theme: 'light' | 'dark' | 'auto'
  position: 'end' | 'start' | 'inline'
  accent: string | null
  suggestions: string[]
  /** `voice`: the voice-first variant. */
  mode: 'chat' | 'voice'
  voiceInput: 'toggle' | 'push-to-talk'
  voice: VoiceModel | null
  /** The open panel, from the panel chunk; null until that has loaded. */
  Panel: PanelChunk['Panel'] | null
  onToggle: (open: boolean) => void
  /** The visitor is about to open the panel (pointer over or focus on the launcher): fetch it now. */
  onWarm: () => void
}

/** The last finished assistant reply or caption, for the aria-live region: announced once, never word by word. */
const announcement = (model: ChatModel) => {
  if (model.phase.value === 'streaming') return ''
  const last = model.entries.value.at(-1)
  return last?.kind === 'assistant' && !last.isPartial ? last.text : ''
}

export const App = ({
  model,
  language,
  theme,
  position,
  accent,
  suggestions,
  mode,
  voiceInput,
  voice,
  Panel,
  onToggle,
  onWarm,
}: AppProps) => {
  const strings = stringsFor(language)
  const launcherRef = useRef<HTMLButtonElement>(null)
  const inputRef = useRef<HTMLTextAreaElement>(null)
  // The voice-first panel may have no text box: focus goes to its microphone instead.
  const micRef = useRef<HTMLButtonElement>(null)
  const isInline = position === 'inline'
  const isOpen = isInline || model.isOpen.value
  // Opened before its chunk arrived: the panel shows (and takes the focus) once it has.
  const isShown = isOpen && Panel !== null
  const wasShown = useRef(isShown)
  // In the commit that shows the panel, not a frame later: the panel may arrive at any moment (its
  // chunk), and nothing should see it, or type into it, before the focus is in it.
  useLayoutEffect(() => {
    // Focus follows the panel: into it on open, back to the launcher on close (keyboard users).
    if (isShown && !wasShown.current) (inputRef.current ?? micRef.current)?.focus()
    if (!isShown && wasShown.current) launcherRef.current?.focus()
    wasShown.current = isShown
  }, [isShown])
  const classes = ['root', theme, isInline ? 'inline' : `floating ${position}`].join(' ')
  // Urdu and Sindhi words arrive with their chunk: nothing shows in another language meanwhile.
  if (!strings) return null
  return (
    <div
      class={classes}
      dir={directionOf(language)}
      lang={language}
      style={accent ? { '--parley-accent': accent } : undefined}
    >
      {isShown && (
        <Panel
          model={model}
          strings={strings}
          suggestions={suggestions}
          inputRef={inputRef}
          micRef={micRef}
          voice={voice}
          language={language}
          isVoiceFirst={mode === 'voice'}
          isPushToTalk={voiceInput === 'push-to-talk'}
          {...(isInline ? {} : { onClose: () => onToggle(false) })}
        />
      )}
      {!isInline && (
        <Launcher
          isOpen={isOpen}
          unread={model.unread.value}
          strings={strings}
          buttonRef={launcherRef}
          onClick={() => onToggle(!isOpen)}
          onWarm={onWarm}
        />
      )}
      <div class="visually-hidden" aria-live="polite" role="status">
        {announcement(model)}
      </div>
    </div>
  )
}
