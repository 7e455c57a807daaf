import { signal } from '@preact/signals'
import { useEffect, useRef } from 'preact/hooks'

/** The studio's own path, below /studio/ (history API: every studio URL can be bookmarked). */
const BASE = '/studio'

const current = () => {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname
  return path === '' || path === '/' ? '/agents' : path
}

export const route = signal(current())

export const navigate = (to: string) => {
  history.pushState(null, '', `${BASE}${to}`)
  route.value = to
}

addEventListener('popstate', () => {
  route.value = current()
})

/** The link of a studio path; a plain click moves without a page load. */
export const linkProps = (to: string) => ({
  href: `${BASE}${to}`,
  onClick: (event: MouseEvent) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return
    event.preventDefault()
    navigate(to)
  },
})

/**
 * After a move within the studio (not the first load), focus goes to the page's main region and
 * the window to the top, so a screen reader reads the new page; the tab's title names the section.
 */
export const useMainRegion = () => {
  const main = useRef<HTMLElement>(null)
  const first = useRef(true)
  const path = route.value
  useEffect(() => {
    const section = document.querySelector('nav [aria-current="page"]')?.textContent
    document.title = section ? `${section} · Parley Studio` : 'Parley Studio'
    if (first.current) {
      first.current = false
      return
    }
    main.current?.focus({ preventScroll: true })
    scrollTo(0, 0)
  }, [path])
  return main
}
