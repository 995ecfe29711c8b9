/**
 * The network the SSRF guard uses: how a host name is resolved, and a fetch whose sockets dial
 * only the addresses the guard checked (closing the DNS-rebinding gap between check and
 * connect). Both are Node code (node:dns, undici: src/node/resolve-host.ts and
 * pinned-fetch.ts), installed with `installGuardedNetwork`. Elsewhere `httpFetch` takes a
 * `resolveHost` and checks before it fetches; on Node it refuses to start without them (a
 * `config` error), so a missing setup never fetches with the guard switched off.
 */
import { LaconicError } from '../../core/contracts/laconic-error.js'
import { NODE_SETUP_HINT, runsOnNode } from '../../core/util/node-setup.js'
import type { ResolveHost } from './ssrf.js'

export interface GuardedNetwork {
  /** Host name to addresses (Node: `node:dns` lookup). */
  resolveHost: ResolveHost
  /** A fetch whose connections go only to addresses `resolveHost` gives and the guard allows. */
  pinnedFetch(resolveHost: ResolveHost): typeof globalThis.fetch
}

let installed: GuardedNetwork | undefined

/** The global fetch as it is at each call (a test or a polyfill may set it later). */
const globalFetch: typeof globalThis.fetch = (input, init) => globalThis.fetch(input, init)

/** Installs Node's network for the guard (src/node/runtime.ts does). */
export function installGuardedNetwork(network: GuardedNetwork): void {
  installed = network
}

/** Refuses host names it cannot check, rather than fetching blind. */
const unresolved: ResolveHost = async () => {
  throw new LaconicError('cannot check where a host name points: nothing resolves host names in this runtime', {
    code: 'config',
    hint: 'pass `resolveHost` to httpFetch, or `allowPrivateNetwork: true` if the SSRF guard is not needed here',
  })
}

/**
 * The resolver and the fetch a guarded fetcher uses: `resolveHost` and `fetch` as given, else
 * the installed network's (the fetch pinned to checked addresses). Throws a `config` error on
 * Node when the network is not installed and the guard would need it.
 */
export function guardedNetwork(
  who: string,
  given: { resolveHost?: ResolveHost | undefined; fetch?: typeof globalThis.fetch | undefined; allowPrivateNetwork: boolean },
): { resolveHost: ResolveHost; fetch: typeof globalThis.fetch } {
  const needed = !given.allowPrivateNetwork && (given.fetch === undefined || given.resolveHost === undefined)
  if (!installed && needed && runsOnNode()) {
    throw new LaconicError(`${who}: Node's DNS-pinned network for the SSRF guard is not installed`, { code: 'config', hint: NODE_SETUP_HINT })
  }
  const resolveHost = given.resolveHost ?? installed?.resolveHost ?? unresolved
  if (given.fetch !== undefined) return { resolveHost, fetch: given.fetch }
  if (installed && !given.allowPrivateNetwork) return { resolveHost, fetch: installed.pinnedFetch(resolveHost) }
  return { resolveHost, fetch: globalFetch }
}
