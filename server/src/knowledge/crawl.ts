import { setTimeout as sleep } from 'node:timers/promises'
import robotsParserModule from 'robots-parser'
import { fetchDocument, USER_AGENT } from './fetch.ts'

type Robots = {
  isAllowed: (url: string, userAgent?: string) => boolean | undefined
  getCrawlDelay: (userAgent?: string) => number | undefined
  getSitemaps: () => string[]
}
// robots-parser is CommonJS: its default import is the function its types call `default`.
const robotsParser = robotsParserModule as unknown as (url: string, text: string) => Robots

const MAX_CRAWL_DELAY_MS = 10_000
const MAX_SITEMAPS = 5
const skippedExtensions =
  /\.(png|jpe?g|gif|webp|svg|ico|css|js|mjs|json|xml|zip|gz|mp[34]|mov|avi|woff2?|ttf|exe|dmg)$/i

export type SitePlan = {
  /** Pages to fetch first: the sitemap's, or the start page alone (then links are followed). */
  urls: string[]
  isFromSitemap: boolean
  isAllowed: (url: string) => boolean
  delayMs: number
}

/** Same host and scheme, no fragment, something that may be a page. */
export const normalizeSiteUrl = (raw: string, origin: string): string | null => {
  try {
    const url = new URL(raw)
    if (url.origin !== origin) return null
    url.hash = ''
    if (skippedExtensions.test(url.pathname)) return null
    return url.toString()
  } catch {
    return null
  }
}

const locsOf = (xml: string) =>
  [...xml.matchAll(/<loc>\s*([^<\s]+)\s*<\/loc>/gi)].map((match) => (match[1] ?? '').replaceAll('&amp;', '&'))

/**
 * How to crawl a site: robots.txt read (missing or unreadable: everything allowed), the polite
 * delay (ours, or its Crawl-delay up to 10 s), and the pages its sitemaps list (robots.txt's
 * Sitemap lines, else /sitemap.xml; a sitemap index is followed one level).
 */
export const planSite = async ({
  startUrl,
  allowHosts,
  maxBytes,
  delayMs,
  maxPages,
}: {
  startUrl: string
  allowHosts: readonly string[]
  maxBytes: number
  delayMs: number
  maxPages: number
}): Promise<SitePlan> => {
  const origin = new URL(startUrl).origin
  const sameSite = (url: URL) => url.origin === origin
  const rules = { allowHosts, maxBytes, isHopAllowed: sameSite }
  const robotsUrl = `${origin}/robots.txt`
  const robotsPage = await fetchDocument(robotsUrl, rules)
  const robotsText = robotsPage.outcome === 'fetched' ? robotsPage.bytes.toString('utf8') : ''
  const robots = robotsParser(robotsUrl, robotsText)
  const isAllowed = (url: string) => robots.isAllowed(url, USER_AGENT) !== false
  const crawlDelaySeconds = robots.getCrawlDelay(USER_AGENT) ?? 0
  const politeDelay = Math.max(delayMs, Math.min(crawlDelaySeconds * 1000, MAX_CRAWL_DELAY_MS))

  const sitemapQueue = robots.getSitemaps().filter((url) => normalizeSiteUrl(url, origin) !== null)
  if (sitemapQueue.length === 0) sitemapQueue.push(`${origin}/sitemap.xml`)
  const pages = new Set<string>()
  for (let read = 0; read < MAX_SITEMAPS && sitemapQueue.length > 0 && pages.size < maxPages; read += 1) {
    const sitemapUrl = sitemapQueue.shift() as string
    if (read > 0) await sleep(politeDelay)
    const sitemap = await fetchDocument(sitemapUrl, rules)
    if (sitemap.outcome !== 'fetched') continue
    const xml = sitemap.bytes.toString('utf8')
    const locs = locsOf(xml)
    if (/<sitemapindex[\s>]/i.test(xml)) {
      sitemapQueue.push(...locs.filter((url) => normalizeSiteUrl(url, origin) !== null))
      continue
    }
    for (const loc of locs) {
      const url = normalizeSiteUrl(loc, origin)
      if (url && isAllowed(url) && pages.size < maxPages) pages.add(url)
    }
  }
  if (pages.size > 0) return { urls: [...pages], isFromSitemap: true, isAllowed, delayMs: politeDelay }
  return { urls: [new URL(startUrl).toString()], isFromSitemap: false, isAllowed, delayMs: politeDelay }
}
