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

/** IPv4-compatible IPv6 (RFC 4291, deprecated): no stack routes it, so it is never public. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96')

/**
 * ipaddr.js reads any IPv6 written with a dotted quad as IPv4-mapped (`::127.0.0.1` as
 * `::ffff:127.0.0.1`), and glibc's resolver writes IPv4-compatible answers that way. The URL
 * parser writes IPv6 in hex groups only, so an address goes through it first.
 */
const parseAddress = (address: string) => {
  const bare = stripBrackets(address)
  return ipaddr.parse(bare.includes(':') ? stripBrackets(new URL(`http://[${bare}]/`).hostname) : bare)
}

/**
 * True only for globally routable unicast addresses. ipaddr.js classifies the ranges of the IANA
 * special-purpose registries (loopback, private, link-local and the metadata address, CGNAT,
 * multicast, documentation, unique-local, site-local, discard, benchmarking, ORCHID, AS112, AMT,
 * SRv6…); anything it does not call `unicast` is refused, and so is the whole of 2001::/23,
 * globally reachable anycast exceptions included (no customer endpoint lives there). IPv4-mapped
 * IPv6 is judged by the IPv4 inside. The forms that embed or translate an IPv4 some other way
 * (IPv4-compatible ::/96, which ipaddr.js calls unicast, NAT64, 6to4, Teredo, IPv4-translated)
 * are refused outright, whatever they embed, since they could carry a private IPv4 past the check.
 */
export const isPublicAddress = (address: string): boolean => {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6
  try {
    parsed = parseAddress(address)
  } catch {
    return false
  }
  if (parsed.kind() === 'ipv6') {
    const ipv6 = parsed as ipaddr.IPv6
    if (ipv6.isIPv4MappedAddress()) return ipv6.toIPv4Address().range() === 'unicast'
    if (ipv6.match(IPV4_COMPATIBLE)) return false
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
