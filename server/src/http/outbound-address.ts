import { lookup as lookupWithSystem } from 'node:dns/promises'
import type { LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'

/** One address a host name resolves to, as `dns.lookup(host, { all: true })` reports it. */
export type ResolvedAddress = { address: string; family: number }

/** Resolves a host name to every address it has. Injectable so tests can simulate DNS rebinding. */
export type ResolveHost = (hostname: string) => Promise<ResolvedAddress[]>

/** The system resolver (getaddrinfo, so /etc/hosts counts: `localhost` is 127.0.0.1). */
export const resolveWithSystem: ResolveHost = (hostname) => lookupWithSystem(hostname, { all: true })

/** `[::1]` as URL.hostname spells it, `::1` as everything else does. */
export const stripBrackets = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1')

export const isIpLiteral = (hostname: string) => ipaddr.isValid(stripBrackets(hostname))

/**
 * True only for globally routable unicast addresses. ipaddr.js classifies the ranges (loopback,
 * private, link-local and the metadata address, CGNAT, multicast, documentation, unique-local…);
 * anything it does not call `unicast` is refused. IPv4-mapped IPv6 is judged by the IPv4 inside,
 * and the other IPv6 transition ranges that embed an IPv4 (NAT64, 6to4, Teredo) are refused
 * outright, since they could smuggle a private IPv4 past the check.
 */
export const isPublicAddress = (address: string): boolean => {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6
  try {
    parsed = ipaddr.parse(stripBrackets(address))
  } catch {
    return false
  }
  if (parsed.kind() === 'ipv6') {
    const ipv6 = parsed as ipaddr.IPv6
    if (ipv6.isIPv4MappedAddress()) return ipv6.toIPv4Address().range() === 'unicast'
  }
  return parsed.range() === 'unicast'
}

/** Raised by the guarded lookup; outbound.ts turns it into its own `forbidden_address` error. */
export class ForbiddenAddressError extends Error {
  override name = 'ForbiddenAddressError'
  readonly code = 'EFORBIDDENADDRESS'
}

/** Resolves a host and refuses it when any of its addresses is not public. */
export const resolvePublicAddresses = async ({
  hostname,
  resolveHost,
}: {
  hostname: string
  resolveHost: ResolveHost
}): Promise<ResolvedAddress[]> => {
  const addresses = await resolveHost(hostname)
  if (addresses.length === 0) throw new Error(`${hostname} has no addresses`)
  // Every address, not just the first: the socket may try any of them (happy eyeballs).
  const forbidden = addresses.find(({ address }) => !isPublicAddress(address))
  if (forbidden) {
    throw new ForbiddenAddressError(`${hostname} resolves to a non-public address (${forbidden.address})`)
  }
  return addresses
}

/**
 * A `lookup` for net/tls.connect that resolves with `resolveHost` and, unless `isAllowed`,
 * refuses non-public answers. It runs when the socket connects, so the address checked is the
 * address used: a name that resolved to a public address at save time and to 127.0.0.1 now fails.
 */
export const createGuardedLookup = ({
  resolveHost,
  isAllowed,
}: {
  resolveHost: ResolveHost
  isAllowed: boolean
}): LookupFunction => {
  return (hostname, options, callback) => {
    const resolving = isAllowed ? resolveHost(hostname) : resolvePublicAddresses({ hostname, resolveHost })
    resolving.then(
      (all) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0
        const matching = wanted === 0 ? all : all.filter(({ family }) => family === wanted)
        if (options.all) return callback(null, matching)
        const first = matching[0]
        if (!first)
          return callback(
            Object.assign(new Error(`${hostname} has no usable address`), { code: 'ENOTFOUND' }),
            '',
            0,
          )
        callback(null, first.address, first.family)
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    )
  }
}
