/**
 * The SSRF guard: a fetch that an agent steers with model output must not reach the
 * machine it runs on, its private network or a cloud metadata service. Checked on the
 * URL's own host, again on every address DNS returns, and again on every redirect hop.
 */
import { LaconicError, ProviderError } from '../../core/contracts/laconic-error.js'
import { parseIPv4, parseIPv6 } from './ip-address.js'

/** Resolves a host name to every address it has (IPv4 and IPv6, as text). */
export type ResolveHost = (hostname: string, signal?: AbortSignal) => Promise<string[]>

/** IPv4 ranges no public web page lives in: [network, prefix length]. */
const BLOCKED_IPV4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network", includes the unspecified address
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT, internal by design
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, includes cloud metadata 169.254.169.254
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes broadcast
]

const BLOCKED_IPV4_RANGES = BLOCKED_IPV4.map(([network, prefix]) => {
  const size = 2 ** (32 - prefix)
  return { start: parseIPv4(network) as number, size }
})

export function isBlockedIPv4(address: number): boolean {
  return BLOCKED_IPV4_RANGES.some(({ start, size }) => address >= start && address < start + size)
}

const v4From = (bytes: Uint8Array, offset: number): number =>
  (bytes[offset] as number) * 2 ** 24 + (bytes[offset + 1] as number) * 2 ** 16 + (bytes[offset + 2] as number) * 2 ** 8 + (bytes[offset + 3] as number)

const allZero = (bytes: Uint8Array, from: number, to: number): boolean => bytes.subarray(from, to).every((byte) => byte === 0)

export function isBlockedIPv6(bytes: Uint8Array): boolean {
  const first = bytes[0] as number
  const second = bytes[1] as number
  if (allZero(bytes, 0, 10)) {
    const marker = (bytes[10] as number) * 256 + (bytes[11] as number)
    // ::/96 (IPv4-compatible, includes :: and ::1) and ::ffff:0:0/96 (IPv4-mapped) carry an IPv4 address
    // (:: and ::1 land in 0.0.0.0/8, so they are refused too)
    if (marker === 0 || marker === 0xffff) return isBlockedIPv4(v4From(bytes, 12))
  }
  // ::ffff:0:0/96 (IPv4-translated, RFC 2765) carries one too
  if (allZero(bytes, 0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && allZero(bytes, 10, 12)) return isBlockedIPv4(v4From(bytes, 12))
  // 64:ff9b:1::/48 (local-use NAT64, RFC 8215): with a /96 prefix the IPv4 address is the last
  // 32 bits, as in 64:ff9b::/96; any other layout (RFC 6052 allows /48 to /64) is refused, not guessed
  if (first === 0x00 && second === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && bytes[4] === 0x00 && bytes[5] === 0x01) {
    return allZero(bytes, 6, 12) ? isBlockedIPv4(v4From(bytes, 12)) : true
  }
  // 64:ff9b::/96 (NAT64) and 2002::/16 (6to4) also embed an IPv4 address that gets reached
  if (first === 0x00 && second === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && allZero(bytes, 4, 12)) return isBlockedIPv4(v4From(bytes, 12))
  if (first === 0x20 && second === 0x02) return isBlockedIPv4(v4From(bytes, 2))
  if ((first & 0xfe) === 0xfc) return true // fc00::/7 unique local
  if (first === 0xfe && (second & 0xc0) === 0x80) return true // fe80::/10 link-local
  if (first === 0xfe && (second & 0xc0) === 0xc0) return true // fec0::/10 site-local (deprecated, still routed internally)
  if (first === 0xff) return true // multicast
  return false
}

/** The address an IP literal names, in either family, or `undefined` for a host name. */
export function parseIpLiteral(text: string): { family: 4; address: number } | { family: 6; bytes: Uint8Array } | undefined {
  const v4 = parseIPv4(text)
  if (v4 !== undefined) return { family: 4, address: v4 }
  const v6 = parseIPv6(text)
  if (v6 !== undefined) return { family: 6, bytes: v6 }
  return undefined
}

/** True when `text` is an IP literal (any textual form) in a loopback, private, link-local or otherwise internal range. */
export function isBlockedAddress(text: string): boolean {
  const literal = parseIpLiteral(text)
  if (!literal) return false
  return literal.family === 4 ? isBlockedIPv4(literal.address) : isBlockedIPv6(literal.bytes)
}

/** Host names that always mean this machine, whatever DNS says. */
function isLocalName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '')
  return name === 'localhost' || name.endsWith('.localhost') || name === 'localhost.localdomain'
}

/** A URL as quoted in an error: model output can hand us megabytes of one. */
export function shortUrl(url: string, max = 200): string {
  return url.length > max ? `${url.slice(0, max)}…` : url
}

function blocked(url: string, why: string): ProviderError {
  return new ProviderError(`refused to fetch ${shortUrl(url)}: ${why}`, {
    code: 'blocked-url',
    provider: 'http-fetch',
    url: shortUrl(url, 2000),
    hint: 'laconic only reads public web pages by default; pass `allowPrivateNetwork: true` to httpFetch to reach your own network',
  })
}

/** A parseable http(s) URL without credentials, or a `blocked-url` error. The only check `allowPrivateNetwork` keeps. */
export function parseWebUrl(raw: string): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ProviderError(`not a valid URL: ${shortUrl(raw)}`, { code: 'blocked-url', provider: 'http-fetch', hint: 'pass an absolute http(s) URL' })
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw blocked(raw, `the ${url.protocol} scheme is not allowed, only http and https`)
  if (url.username || url.password) throw blocked(raw, 'URLs with credentials are not fetched')
  return url
}

/** The checks that need no network: a web URL whose host is not a blocked IP literal or a local name. */
export function checkUrlSyntax(raw: string): URL {
  const url = parseWebUrl(raw)
  if (isLocalName(url.hostname)) throw blocked(raw, `${shortUrl(url.hostname)} is this machine`)
  if (isBlockedAddress(url.hostname)) throw blocked(raw, `${shortUrl(url.hostname)} is a loopback, private or link-local address`)
  return url
}

/**
 * Full check for one hop: syntax first, then every address the host resolves to.
 * A host with any internal address is refused, so DNS round-robin cannot sneak one in.
 */
export async function assertPublicUrl(raw: string, resolve: ResolveHost, signal?: AbortSignal): Promise<URL> {
  const url = checkUrlSyntax(raw)
  if (parseIpLiteral(url.hostname)) return url
  let addresses: string[]
  try {
    addresses = await resolve(url.hostname, signal)
  } catch (cause) {
    if (cause instanceof LaconicError) throw cause
    throw new ProviderError(`could not resolve ${shortUrl(url.hostname)}`, {
      code: 'network',
      provider: 'http-fetch',
      url: shortUrl(raw, 2000),
      retryable: true,
      hint: 'check the host name and the network',
      cause,
    })
  }
  const internal = addresses.find((address) => isBlockedAddress(address))
  if (internal !== undefined) throw blocked(raw, `${shortUrl(url.hostname)} resolves to ${internal}, a loopback, private or link-local address`)
  return url
}
