import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { assertPublicUrl, checkUrlSyntax, isBlockedAddress } from '../../../src/adapters/fetch/ssrf.js'
import { parseIPv4, parseIPv6 } from '../../../src/adapters/fetch/ip-address.js'
import { ProviderError } from '../../../src/index.js'

const byte = fc.integer({ min: 0, max: 255 })
const quad = (a: fc.Arbitrary<number>, b: fc.Arbitrary<number> = byte) => fc.tuple(a, b, byte, byte)

/** The ranges the issue names, written out independently of the implementation. */
const internalV4 = fc.oneof(
  quad(fc.constant(127)), // loopback
  quad(fc.constant(10)), // private
  quad(fc.constant(172), fc.integer({ min: 16, max: 31 })),
  quad(fc.constant(192), fc.constant(168)),
  quad(fc.constant(169), fc.constant(254)), // link-local, cloud metadata
  quad(fc.constant(0)), // unspecified / this network
)

/** First octets that sit outside every internal range. */
const publicV4 = quad(
  fc.oneof(
    fc.integer({ min: 1, max: 9 }),
    fc.integer({ min: 11, max: 99 }),
    fc.integer({ min: 101, max: 126 }),
    fc.integer({ min: 128, max: 168 }),
    fc.integer({ min: 173, max: 191 }),
    fc.integer({ min: 193, max: 197 }),
    fc.integer({ min: 199, max: 223 }),
  ),
)

const toInt = ([a, b, c, d]: number[]) => (((a as number) * 256 + (b as number)) * 256 + (c as number)) * 256 + (d as number)
const hex = (n: number) => n.toString(16)

/** Every way to write one IPv4 address that some parser (inet_aton, WHATWG URL, curl) accepts. */
function spellings(parts: [number, number, number, number]): string[] {
  const [a, b, c, d] = parts
  const n = toInt(parts)
  const h1 = hex(a * 256 + b).padStart(4, '0')
  const h2 = hex(c * 256 + d).padStart(4, '0')
  return [
    `${a}.${b}.${c}.${d}`,
    `${n}`,
    `0x${hex(n)}`,
    `0X${hex(n).toUpperCase()}`,
    `0${n.toString(8)}`,
    parts.map((p) => `0${p.toString(8)}`).join('.'),
    parts.map((p) => `0x${hex(p)}`).join('.'),
    `0x${hex(a)}.${b}.0${c.toString(8)}.${d}`,
    `${a}.${b}.${c * 256 + d}`,
    `${a}.${b * 65536 + c * 256 + d}`,
    `${a}.${b}.${c}.${d}.`,
    `::ffff:${a}.${b}.${c}.${d}`,
    `::FFFF:${h1}:${h2}`,
    `0:0:0:0:0:ffff:${h1}:${h2}`,
    `[::ffff:${a}.${b}.${c}.${d}]`,
    `::${a}.${b}.${c}.${d}`,
    `64:ff9b::${a}.${b}.${c}.${d}`,
    // IPv4-translated (::ffff:0:0/96) and local-use NAT64 (64:ff9b:1::/48), issue 13
    `::ffff:0:${h1}:${h2}`,
    `::ffff:0:${a}.${b}.${c}.${d}`,
    `64:ff9b:1::${h1}:${h2}`,
    `64:ff9b:1::${a}.${b}.${c}.${d}`,
    `2002:${h1}:${h2}::1`,
  ]
}

describe('SSRF guard: addresses', () => {
  it('refuses internal IPv4 addresses in every textual form', () => {
    fc.assert(
      fc.property(internalV4, (parts) => {
        for (const text of spellings(parts)) expect(isBlockedAddress(text), text).toBe(true)
      }),
    )
  })

  it('refuses them inside URLs too, whatever form the host takes', () => {
    fc.assert(
      fc.property(internalV4, (parts) => {
        for (const text of spellings(parts)) {
          const host = text.includes(':') && !text.startsWith('[') ? `[${text}]` : text
          expect(() => checkUrlSyntax(`http://${host}:8080/x`), host).toThrow(ProviderError)
        }
      }),
    )
  })

  it('accepts public IPv4 addresses in every textual form', () => {
    fc.assert(
      fc.property(publicV4, (parts) => {
        for (const text of spellings(parts)) expect(isBlockedAddress(text), text).toBe(false)
      }),
    )
  })

  it('refuses internal IPv6 ranges and accepts global unicast', () => {
    // The two the issue-13 probe slipped through, and a local-use NAT64 layout not guessed at.
    for (const text of ['::ffff:0:7f00:1', '64:ff9b:1::a9fe:a9fe', '64:ff9b:1:7f00:1::']) expect(isBlockedAddress(text), text).toBe(true)
    for (const text of ['::1', '::', '[::1]', 'fc00::1', 'fd12:3456::9', 'fe80::1', 'fe80::1%eth0', 'FEBF::1', 'ff02::1', '0:0:0:0:0:0:0:1']) {
      expect(isBlockedAddress(text), text).toBe(true)
    }
    fc.assert(
      fc.property(fc.integer({ min: 0x2400, max: 0x2fff }), fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 7, maxLength: 7 }), (head, rest) => {
        expect(isBlockedAddress([head, ...rest].map(hex).join(':'))).toBe(false)
      }),
    )
  })

  it('treats host names as names, not addresses', () => {
    expect(isBlockedAddress('example.com')).toBe(false)
    expect(isBlockedAddress('1.2.3.4.5')).toBe(false)
    expect(isBlockedAddress('0x7g.0.0.1')).toBe(false)
  })

  it('parses IPv4 and IPv6 totally', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        parseIPv4(text)
        parseIPv6(text)
        isBlockedAddress(text)
      }),
    )
    expect(parseIPv4('127.1')).toBe(0x7f000001)
    expect(parseIPv4('256.0.0.1')).toBeUndefined()
    expect(parseIPv6('1::2::3')).toBeUndefined()
    expect(parseIPv6('::ffff:1.2.3.4')?.slice(10)).toEqual(new Uint8Array([0xff, 0xff, 1, 2, 3, 4]))
  })
})

describe('SSRF guard: URLs', () => {
  it('refuses other schemes, credentials and local names', () => {
    for (const url of [
      'file:///etc/passwd',
      'ftp://example.com/',
      'gopher://x/',
      'http://user:pw@example.com/',
      'http://localhost/',
      'http://api.localhost./',
      'not a url',
    ]) {
      expect(() => checkUrlSyntax(url), url).toThrow(expect.objectContaining({ code: 'blocked-url' }))
    }
    expect(checkUrlSyntax('https://example.com/a').hostname).toBe('example.com')
  })

  it('refuses a host when any resolved address is internal', async () => {
    const resolve = async (host: string) => (host === 'evil.test' ? ['93.184.216.34', '::ffff:169.254.169.254'] : ['93.184.216.34'])
    await expect(assertPublicUrl('http://evil.test/', resolve)).rejects.toMatchObject({
      code: 'blocked-url',
      hint: expect.stringContaining('allowPrivateNetwork'),
    })
    await expect(assertPublicUrl('http://good.test/', resolve)).resolves.toBeInstanceOf(URL)
  })

  it('does not ask DNS about IP literals', async () => {
    const resolve = async (): Promise<string[]> => {
      throw new Error('resolver must not be called')
    }
    await expect(assertPublicUrl('http://93.184.216.34/', resolve)).resolves.toBeInstanceOf(URL)
    await expect(assertPublicUrl('http://0x7f.1/', resolve)).rejects.toMatchObject({ code: 'blocked-url' })
  })
})
