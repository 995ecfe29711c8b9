/**
 * `laconic-research/adapters` on Node (its `node` export condition): the Web-standard adapters
 * with Node's parts installed (src/node/runtime.ts): off-thread extraction, the DNS-pinned SSRF
 * guard, `localCorpus({ dir })`. Same names and types as src/adapters/index.ts.
 */
import { installNodeRuntime } from './runtime.js'

installNodeRuntime()

export * from '../adapters/index.js'
