/**
 * The web node's guard against cross-site requests: a state-changing request (start, cancel)
 * must come from the node's own page. Browsers say where a request comes from (`Sec-Fetch-Site`,
 * `Origin`); the per-server token, which only the node's own page carries, covers clients that
 * say nothing. (Issue 13 makes one reusable check of this kind in laconic-research/node; this
 * one is to be replaced by it.)
 */
import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

export const TOKEN_HEADER = 'x-laconic-token'

/** Why the request may not change anything, or undefined when it may. */
export function refuseCrossSite(req: IncomingMessage, token: string): string | undefined {
  const site = req.headers['sec-fetch-site']
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `a ${site} request may not start or cancel runs`
  const origin = req.headers.origin
  if (origin !== undefined && origin !== `http://${req.headers.host ?? ''}`) return `requests from ${origin} may not start or cancel runs`
  const sent = req.headers[TOKEN_HEADER]
  if (typeof sent !== 'string' || !sameText(sent, token)) return `send the token of this server's page in ${TOKEN_HEADER}`
  return undefined
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}
