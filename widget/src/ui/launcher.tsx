import type { Ref } from 'preact'
import { format, type Strings } from '../i18n.ts'

/** The round button in the corner, with the count of replies that arrived while the panel was closed. */
export const Launcher = ({
  isOpen,
  unread,
  strings,
  onClick,
  onWarm,
  buttonRef,
}: {
  isOpen: boolean
  unread: number
  strings: Strings
  onClick: () => void
  /** Pointer over or focus on the button: the panel's chunk is fetched before the click. */
  onWarm: () => void
  buttonRef: Ref<HTMLButtonElement>
}) => {
  const label = isOpen ? strings.closeChat : strings.openChat
  return (
    <button
      ref={buttonRef}
      type="button"
      class="launcher"
      part="launcher"
      aria-expanded={isOpen}
      aria-label={unread > 0 && !isOpen ? `${label} (${format(strings.unread, { count: unread })})` : label}
      onClick={onClick}
      onPointerEnter={onWarm}
      onFocus={onWarm}
    >
      <svg viewBox="0 0 24 24" aria-hidden="true">
        {isOpen ? (
          <path d="M18.3 5.7a1 1 0 0 0-1.4 0L12 10.6 7.1 5.7a1 1 0 0 0-1.4 1.4l4.9 4.9-4.9 4.9a1 1 0 1 0 1.4 1.4l4.9-4.9 4.9 4.9a1 1 0 0 0 1.4-1.4L13.4 12l4.9-4.9a1 1 0 0 0 0-1.4z" />
        ) : (
          <path d="M6 4h12a3 3 0 0 1 3 3v8a3 3 0 0 1-3 3h-7l-5 4v-4.2A3 3 0 0 1 3 15V7a3 3 0 0 1 3-3z" />
        )}
      </svg>
      {unread > 0 && !isOpen && (
        <span class="badge" part="badge" aria-hidden="true">
          {unread}
        </span>
      )}
    </button>
  )
}
