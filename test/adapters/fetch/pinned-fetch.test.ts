import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { httpFetch } from '../../../src/adapters/index.js'
import { guardedLookup } from '../../../src/node/pinned-fetch.js'

type Looked = { error: Error | null; address: unknown; family?: number | undefined }
function lookup(addresses: string[], options: { all?: boolean; family?: number } = {}): Promise<Looked> {
  return new Promise((resolve) => guardedLookup(async () => addresses)('host.test', options, (error, address, family) => resolve({ error, address, family })))
}

describe('the connection-time guard (DNS pinning)', () => {
  it('refuses when any resolved address is internal', async () => {
    const { error } = await lookup(['93.184.216.34', '169.254.169.254'])
    expect(error).toMatchObject({ code: 'blocked-url' })
    expect(error?.message).toContain('169.254.169.254')
  })

  it('hands the socket the checked public addresses, by family when asked', async () => {
    expect(await lookup(['93.184.216.34', '2606:2800:220:1::1'])).toMatchObject({ error: null, address: '93.184.216.34', family: 4 })
    expect(await lookup(['93.184.216.34', '2606:2800:220:1::1'], { family: 6 })).toMatchObject({ address: '2606:2800:220:1::1', family: 6 })
    expect(await lookup(['93.184.216.34', '2606:2800:220:1::1'], { all: true })).toMatchObject({
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1::1', family: 6 },
      ],
    })
  })

  it('closes the rebinding gap: a name that resolves public for the check and loopback for the connection is refused', async () => {
    let requests = 0
    const server = createServer((_req, res) => {
      requests++
      res.end('internal secret')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    let lookups = 0
    // First answer (the guard's check): public. Every later answer (the socket's): loopback.
    const rebinding = async () => (lookups++ === 0 ? ['93.184.216.34'] : ['127.0.0.1'])
    try {
      const fetcher = httpFetch({ resolveHost: rebinding, maxRetries: 0 })
      await expect(fetcher.fetch(`http://rebind.test:${port}/`)).rejects.toThrow(/private or local address|127\.0\.0\.1/)
      expect(lookups).toBeGreaterThanOrEqual(2)
      expect(requests).toBe(0)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
