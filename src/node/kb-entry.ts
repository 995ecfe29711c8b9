/**
 * `laconic-research/kb` on Node (its `node` export condition): the knowledge base with Node's
 * parts installed (src/node/runtime.ts): files and folders as sources, off-thread extraction,
 * the DNS-pinned SSRF guard of its default `httpFetch`. Same names and types as src/kb/index.ts.
 */
import { installNodeRuntime } from './runtime.js'

installNodeRuntime()

export * from '../kb/index.js'
