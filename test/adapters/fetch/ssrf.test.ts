/**
 * The SSRF guard, as `httpFetch` applies it: to the URL's own host, and to every address its
 * host name resolves to (the `resolveHost` option stands in for DNS, and a `fetch` of the test's
 * own stands in for the network, so an accepted URL is answered without leaving the machine).
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { httpFetch } from '../../../src/adapters/index.js'
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

/** A fetcher whose host names resolve to `addresses`, and the URLs its network was asked for. */
function guarded(resolve: (host: string) => string[] | Promise<string[]>) {
  const sent: string[] = []
  const fetch: typeof globalThis.fetch = async (input) => {
    sent.push(String(input))
    return new Response('ok', { headers: { 'content-type': 'text/plain' } })
  }
  return { fetcher: httpFetch({ resolveHost: async (host) => resolve(host), fetch, maxRetries: 0 }), sent }
}

const noDns = () => {
  throw new Error('resolver must not be called')
}

/** Whether httpFetch refuses a host name that resolves to `address` (and then sends nothing). */
async function refusesResolvedTo(address: string): Promise<boolean> {
  const { fetcher, sent } = guarded(() => [address])
  const outcome = await fetcher.fetch('http://host.test/').then(
    () => 'fetched',
    (error: unknown) => error,
  )
  if (outcome === 'fetched') {
    expect(sent).toEqual(['http://host.test/'])
    return false
  }
  expect(outcome).toMatchObject({ code: 'blocked-url', message: expect.stringContaining(`resolves to ${address}`) })
  expect(sent).toEqual([])
  return true
}

describe('SSRF guard: addresses', () => {
  it('refuses internal IPv4 addresses in every textual form', async () => {
    await fc.assert(
      fc.asyncProperty(internalV4, async (parts) => {
        for (const text of spellings(parts)) expect(await refusesResolvedTo(text), text).toBe(true)
      }),
    )
  })

  it('refuses them inside URLs too, whatever form the host takes', async () => {
    const { fetcher, sent } = guarded(noDns)
    await fc.assert(
      fc.asyncProperty(internalV4, async (parts) => {
        for (const text of spellings(parts)) {
          const host = text.includes(':') && !text.startsWith('[') ? `[${text}]` : text
          const error = await fetcher.fetch(`http://${host}:8080/x`).catch((e: unknown) => e)
          expect(error, host).toBeInstanceOf(ProviderError)
          expect(error, host).toMatchObject({ code: 'blocked-url' })
        }
      }),
    )
    expect(sent).toEqual([])
  })

  it('accepts public IPv4 addresses in every textual form', async () => {
    await fc.assert(
      fc.asyncProperty(publicV4, async (parts) => {
        for (const text of spellings(parts)) expect(await refusesResolvedTo(text), text).toBe(false)
      }),
    )
  })

  it('refuses internal IPv6 ranges and accepts global unicast', async () => {
    // The two the issue-13 probe slipped through, and a local-use NAT64 layout not guessed at.
    for (const text of ['::ffff:0:7f00:1', '64:ff9b:1::a9fe:a9fe', '64:ff9b:1:7f00:1::']) expect(await refusesResolvedTo(text), text).toBe(true)
    for (const text of ['::1', '::', '[::1]', 'fc00::1', 'fd12:3456::9', 'fe80::1', 'fe80::1%eth0', 'FEBF::1', 'ff02::1', '0:0:0:0:0:0:0:1']) {
      expect(await refusesResolvedTo(text), text).toBe(true)
    }
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0x2400, max: 0x2fff }),
        fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 7, maxLength: 7 }),
        async (head, rest) => {
          expect(await refusesResolvedTo([head, ...rest].map(hex).join(':'))).toBe(false)
        },
      ),
    )
  })

  it('treats host names as names, not addresses', async () => {
    expect(await refusesResolvedTo('example.com')).toBe(false)
    expect(await refusesResolvedTo('1.2.3.4.5')).toBe(false)
    expect(await refusesResolvedTo('0x7g.0.0.1')).toBe(false)
  })

  it('parses IPv4 and IPv6 totally, and exactly', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string(), async (text) => {
        // Whatever DNS answers, the fetch is answered or refused as a blocked URL, nothing else.
        await refusesResolvedTo(text)
      }),
    )
    // 127.1 is 127.0.0.1; an a.b address puts b in the low 24 bits: 172.16.0.0 is private, the one below it is not.
    expect(await refusesResolvedTo('127.1')).toBe(true)
    expect(await refusesResolvedTo('172.1048576')).toBe(true)
    expect(await refusesResolvedTo('172.1048575')).toBe(false)
    // Not addresses at all, so names: an octet over 255, two "::".
    expect(await refusesResolvedTo('256.0.0.1')).toBe(false)
    expect(await refusesResolvedTo('1::2::3')).toBe(false)
    // An IPv4-mapped IPv6 address carries its IPv4 address in its last four bytes.
    expect(await refusesResolvedTo('::ffff:1.2.3.4')).toBe(false)
    expect(await refusesResolvedTo('::ffff:10.2.3.4')).toBe(true)
  })
})

describe('SSRF guard: URLs', () => {
  it('refuses other schemes, credentials and local names', async () => {
    const { fetcher, sent } = guarded(noDns)
    for (const url of [
      'file:///etc/passwd',
      'ftp://example.com/',
      'gopher://x/',
      'http://user:pw@example.com/',
      'http://localhost/',
      'http://api.localhost./',
      'not a url',
    ]) {
      await expect(fetcher.fetch(url), url).rejects.toMatchObject({ code: 'blocked-url' })
    }
    expect(sent).toEqual([])
    const asked: string[] = []
    const allowed = guarded((host) => {
      asked.push(host)
      return ['93.184.216.34']
    })
    await expect(allowed.fetcher.fetch('https://example.com/a')).resolves.toMatchObject({ url: 'https://example.com/a', text: 'ok' })
    expect(asked).toEqual(['example.com'])
  })

  it('refuses a host when any resolved address is internal', async () => {
    const { fetcher, sent } = guarded((host) => (host === 'evil.test' ? ['93.184.216.34', '::ffff:169.254.169.254'] : ['93.184.216.34']))
    await expect(fetcher.fetch('http://evil.test/')).rejects.toMatchObject({
      code: 'blocked-url',
      hint: expect.stringContaining('allowPrivateNetwork'),
    })
    await expect(fetcher.fetch('http://good.test/')).resolves.toMatchObject({ url: 'http://good.test/' })
    expect(sent).toEqual(['http://good.test/'])
  })

  it('does not ask DNS about IP literals', async () => {
    const { fetcher, sent } = guarded(noDns)
    await expect(fetcher.fetch('http://93.184.216.34/')).resolves.toMatchObject({ url: 'http://93.184.216.34/' })
    await expect(fetcher.fetch('http://0x7f.1/')).rejects.toMatchObject({ code: 'blocked-url' })
    expect(sent).toEqual(['http://93.184.216.34/'])
  })
})
