/**
 * A fetch whose connections go only where the SSRF guard allows. Checking a host name and then
 * handing the URL to `fetch` leaves a gap: `fetch` resolves the name again, and a rebinding DNS
 * server can answer with a public address the first time and 127.0.0.1 the second. Here the
 * lookup the socket itself uses runs the guard, so the address checked is the address dialled.
 * Node only (undici); installed for `httpFetch` by src/node/runtime.ts.
 */
import type { LookupAddress, LookupOptions } from 'node:dns'
import { Agent, fetch as undiciFetch } from 'undici'
import { ProviderError } from '../core/contracts/laconic-error.js'
import { isBlockedAddress, type ResolveHost } from '../adapters/fetch/ssrf.js'

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void

function blocked(hostname: string, address: string): ProviderError {
  return new ProviderError(`refused to connect to ${hostname}: it resolves to ${address}, a private or local address`, {
    code: 'blocked-url',
    provider: 'http-fetch',
    hint: 'the SSRF guard refuses internal destinations; pass `allowPrivateNetwork: true` to httpFetch to reach your own network',
  })
}

/** A `net.connect` lookup: resolves with `resolveHost`, refuses when any address is internal. */
export function guardedLookup(resolveHost: ResolveHost) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolveHost(hostname).then(
      (addresses) => {
        const refused = addresses.find((address) => isBlockedAddress(address))
        if (refused !== undefined) return callback(blocked(hostname, refused), '')
        const wanted = addresses
          .map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
          .filter(({ family }) => !options.family || options.family === family)
        const first = wanted[0]
        if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '')
        if (options.all) callback(null, wanted)
        else callback(null, first.address, first.family)
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), ''),
    )
  }
}

/** A fetch over an undici agent whose sockets dial only guarded addresses. */
export function pinnedFetch(resolveHost: ResolveHost): typeof globalThis.fetch {
  const dispatcher = new Agent({ connect: { lookup: guardedLookup(resolveHost) } })
  type UndiciInit = Parameters<typeof undiciFetch>[1]
  return ((input: string | URL, init?: RequestInit) => undiciFetch(input, { ...(init as UndiciInit), dispatcher })) as unknown as typeof globalThis.fetch
}
