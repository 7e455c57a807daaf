import { signal } from '@preact/signals'

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
