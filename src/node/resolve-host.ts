/** The SSRF guard's resolver on Node: every address `node:dns` gives for a host name. */
import { lookup } from 'node:dns/promises'
import { abortError } from '../core/contracts/laconic-error.js'
import type { ResolveHost } from '../adapters/fetch/ssrf.js'

export const resolveWithNodeDns: ResolveHost = async (hostname, signal) => {
  if (signal?.aborted) throw abortError(signal)
  const answers = await lookup(hostname, { all: true, verbatim: true })
  return answers.map((answer) => answer.address)
}
