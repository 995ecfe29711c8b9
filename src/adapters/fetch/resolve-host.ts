/**
 * The default DNS resolver for the SSRF guard. `node:dns/promises` is loaded only when a
 * host name must be checked, so the fetch adapter still imports in runtimes without it;
 * there the guard refuses host names it cannot check rather than fetching blind.
 */
import { LaconicError, abortError } from '../../core/contracts/laconic-error.js'
import type { ResolveHost } from './ssrf.js'

export const resolveWithNodeDns: ResolveHost = async (hostname, signal) => {
  if (signal?.aborted) throw abortError(signal)
  let dns: typeof import('node:dns/promises')
  try {
    dns = await import('node:dns/promises')
  } catch (cause) {
    throw new LaconicError('cannot check where a host name points: node:dns is not available in this runtime', {
      code: 'config',
      hint: 'pass `resolveHost` to httpFetch, or `allowPrivateNetwork: true` if the SSRF guard is not needed here',
      cause,
    })
  }
  const answers = await dns.lookup(hostname, { all: true, verbatim: true })
  return answers.map((answer) => answer.address)
}
