/**
 * One or more addresses of every IANA special-purpose IPv6 block (and the IPv4 ones IPv6 can
 * carry), each of which outbound calls must refuse, with the block it stands for. Shared by the
 * outbound tests, the save-time tests of function endpoints and webhook URLs, and the probe.
 */
export const privateIpv6 = [
  ['::', '::/128 unspecified'],
  ['::1', '::1/128 loopback'],
  ['::127.0.0.1', '::/96 IPv4-compatible (loopback inside)'],
  ['::a00:1', '::/96 IPv4-compatible (10.0.0.1 inside)'],
  ['::8.8.8.8', '::/96 IPv4-compatible (deprecated; refused whatever is inside)'],
  ['::2', '::/96 IPv4-compatible (0.0.0.2)'],
  ['::ffff:127.0.0.1', '::ffff:0:0/96 IPv4-mapped loopback'],
  ['::ffff:10.0.0.1', '::ffff:0:0/96 IPv4-mapped private'],
  ['::ffff:169.254.169.254', '::ffff:0:0/96 IPv4-mapped metadata'],
  ['::ffff:0:a00:1', '::ffff:0:0:0/96 IPv4-translated'],
  ['64:ff9b::a00:1', '64:ff9b::/96 NAT64 (10.0.0.1)'],
  ['64:ff9b::7f00:1', '64:ff9b::/96 NAT64 (127.0.0.1)'],
  ['64:ff9b::808:808', '64:ff9b::/96 NAT64 (refused whatever is inside)'],
  ['64:ff9b:1::a00:1', '64:ff9b:1::/48 local-use NAT64'],
  ['100::1', '100::/64 discard-only'],
  ['2001::1', '2001::/32 Teredo'],
  ['2001:1::1', '2001:1::1/128 PCP anycast (in 2001::/23)'],
  ['2001:1::2', '2001:1::2/128 TURN anycast (in 2001::/23)'],
  ['2001:2::1', '2001:2::/48 benchmarking'],
  ['2001:3::1', '2001:3::/32 AMT'],
  ['2001:4:112::1', '2001:4:112::/48 AS112-v6'],
  ['2001:10::1', '2001:10::/28 ORCHID (deprecated)'],
  ['2001:20::1', '2001:20::/28 ORCHIDv2'],
  ['2001:30::1', '2001:30::/28 drone remote ID'],
  ['2001:1ff:ffff::1', '2001::/23 IETF protocol assignments (the rest)'],
  ['2001:db8::1', '2001:db8::/32 documentation'],
  ['2002:a00:1::1', '2002::/16 6to4 (10.0.0.1 inside)'],
  ['2002:808:808::1', '2002::/16 6to4 (refused whatever is inside)'],
  ['2620:4f:8000::1', '2620:4f:8000::/48 direct delegation AS112'],
  ['3fff::1', '3fff::/20 documentation'],
  ['5f00::1', '5f00::/16 SRv6 SIDs'],
  ['fc00::1', 'fc00::/7 unique-local'],
  ['fd12:3456::1', 'fc00::/7 unique-local'],
  ['fe80::1', 'fe80::/10 link-local'],
  ['fec0::1', 'fec0::/10 site-local (deprecated)'],
  ['ff02::1', 'ff00::/8 multicast'],
  ['ff0e::101', 'ff00::/8 multicast (global scope)'],
] as const

/** Global unicast IPv6 and IPv4-mapped public IPv4: accepted. */
export const publicIpv6 = [
  '2001:4860:4860::8888',
  '2606:4700:4700::1111',
  '2a00:1450:4001::1',
  '::ffff:8.8.8.8',
]
