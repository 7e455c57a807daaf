import { isIP } from 'node:net'
import { domainToASCII } from 'node:url'

/** One entry of a widget key's allowedDomains, normalized: ASCII (punycode), lower case. */
export type DomainRule = { protocol: 'http:' | 'https:' | null; hostname: string; port: number | null }

const ENTRY = /^(?:(https?):\/\/)?([^/:?#@\s]+)(?::(\d{1,5}))?\/?$/i
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/

const defaultPort = (protocol: string) => (protocol === 'https:' ? 443 : 80)

const isHostname = (host: string) =>
  isIP(host) === 4 || (host.length <= 253 && host.split('.').every((label) => LABEL.test(label)))

/**
 * Reads what an owner typed: `example.com`, `https://shop.example.com`, `EXAMPLE.com:8443`,
 * `*.example.com` (the same as `example.com`, which covers subdomains anyway), `bücher.de`.
 * Returns null for anything that is not a host with an optional scheme and port.
 */
export const parseDomainRule = (entry: string): DomainRule | null => {
  const match = ENTRY.exec(entry.trim())
  if (!match) return null
  const [, scheme, rawHost = '', rawPort] = match
  const hostname = domainToASCII(rawHost.replace(/^\*?\./, '').replace(/\.$/, '')).toLowerCase()
  if (!hostname || !isHostname(hostname)) return null
  const port = rawPort === undefined ? null : Number(rawPort)
  if (port !== null && (port < 1 || port > 65535)) return null
  const protocol = scheme ? (`${scheme.toLowerCase()}:` as DomainRule['protocol']) : null
  return { protocol, hostname, port }
}

/** The stored form of a rule, e.g. `https://xn--bcher-kva.de:8443`. */
export const formatDomainRule = ({ protocol, hostname, port }: DomainRule) =>
  `${protocol ? `${protocol}//` : ''}${hostname}${port === null ? '' : `:${port}`}`

const coversHost = (rule: DomainRule, hostname: string) =>
  hostname === rule.hostname || (isIP(rule.hostname) === 0 && hostname.endsWith(`.${rule.hostname}`))

/**
 * Whether a browser Origin may use a widget key. `localhost` (any port) is always allowed; a
 * listed domain covers its subdomains on a label boundary, so `example.com` never admits
 * `evil-example.com` or `example.com.evil.io`; scheme and port are checked only when listed.
 */
export const isOriginAllowed = ({
  origin,
  allowedDomains,
}: {
  origin: string | null | undefined
  allowedDomains: readonly string[]
}): boolean => {
  if (!origin || origin === 'null') return false
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false
  if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '')) return false
  // WHATWG URL already lower-cases and punycodes the host; a trailing dot names the same host.
  const hostname = url.hostname.replace(/\.$/, '')
  if (hostname === 'localhost') return true
  const port = url.port ? Number(url.port) : defaultPort(url.protocol)
  return allowedDomains.some((entry) => {
    const rule = parseDomainRule(entry)
    if (!rule || !coversHost(rule, hostname)) return false
    if (rule.protocol && rule.protocol !== url.protocol) return false
    return rule.port === null || rule.port === port
  })
}
