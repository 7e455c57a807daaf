import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { session } from './api.ts'
import { t } from './i18n.tsx'
import { ErrorLine, Loading } from './ui.tsx'

/**
 * The real widget inside the studio: `/widget/parley.js` from this same server (what owners put
 * on their pages), loaded once when a page first shows it, never with the studio's first load.
 */

/** `<parley-widget>` as the studio drives it: its attributes, and the methods it calls. */
export type ParleyWidget = HTMLElement & {
  studioToken: string
  open: () => void
  endConversation: () => Promise<void>
}

/** The widget's attributes (widget/src/element.tsx); `null` leaves one out. */
export type WidgetAttributes = Record<string, string | null>

let loading: Promise<void> | null = null

const loadWidgetScript = () => {
  loading ??= new Promise<void>((resolve, reject) => {
    if (customElements.get('parley-widget')) return resolve()
    const script = document.createElement('script')
    script.src = '/widget/parley.js'
    script.async = true
    script.onerror = () => {
      loading = null
      script.remove()
      reject(new Error(t('The widget could not be loaded from this server. Reload the page to try again.')))
    }
    document.head.append(script)
    customElements.whenDefined('parley-widget').then(() => resolve(), reject)
  })
  return loading
}

/**
 * One `<parley-widget>` talking to this server as the signed-in member: the studio token is set as
 * a property after the element exists, so it is never an attribute (nothing in the page's markup
 * holds it). Attributes change in place, as on an owner's page; `key` starts a new element.
 */
export const EmbeddedWidget = ({
  attributes,
  onElement,
}: {
  attributes: WidgetAttributes
  onElement?: (element: ParleyWidget | null) => void
}) => {
  const [isReady, setReady] = useState(Boolean(customElements.get('parley-widget')))
  const [error, setError] = useState<unknown>(null)
  const host = useRef<HTMLDivElement>(null)
  const element = useRef<ParleyWidget | null>(null)
  const token = session.value?.token ?? ''

  useEffect(() => {
    if (!isReady) loadWidgetScript().then(() => setReady(true), setError)
  }, [isReady])

  // Made by hand, not by JSX: Preact would write an unknown property such as the token as an
  // attribute. Its first attributes and the token are set before it connects, so it mounts once.
  useLayoutEffect(() => {
    if (!isReady || !host.current) return
    const widget = element.current ?? (document.createElement('parley-widget') as ParleyWidget)
    for (const [name, value] of Object.entries(attributes)) {
      if (value === null) widget.removeAttribute(name)
      else if (widget.getAttribute(name) !== value) widget.setAttribute(name, value)
    }
    widget.studioToken = token
    if (element.current) return
    element.current = widget
    host.current.append(widget)
    onElement?.(widget)
  })
  useLayoutEffect(
    () => () => {
      element.current?.remove()
      element.current = null
      onElement?.(null)
    },
    [],
  )

  if (error) return <ErrorLine error={error} />
  return (
    <>
      {isReady ? null : <Loading />}
      <div ref={host} class="widget-host" />
    </>
  )
}
