/**
 * Node's parts of the Web-standard modules, installed into them here and nowhere else: the
 * extraction pool (worker threads parse untrusted pages and documents), the SSRF guard's DNS
 * and its pinned connections (node:dns, undici), reading a folder for `localCorpus({ dir })`,
 * reading files for the knowledge base, and loading GGUF models for `local()` and
 * `localEmbeddings()`. Node's builds of `laconic-research/adapters` and
 * `/kb` (the `node` export condition), `laconic-research/node`, `/browser` and the `laconic`
 * command call it on import, so a user on Node does nothing; calling it again does nothing.
 */
import { installGuardedNetwork } from '../adapters/fetch/guarded-network.js'
import { installExtractPool } from '../adapters/fetch/off-thread.js'
import { installLlamaLoader } from '../adapters/llm/llama-engine.js'
import { installDirectoryLoader } from '../adapters/search/local/local-corpus.js'
import { installFileSource } from '../kb/knowledge-sources.js'
import { createExtractPool } from './extract-pool.js'
import { fileSource } from './file-source.js'
import { loadDirectory } from './load-dir.js'
import { loadLlamaModel } from './llama-load.js'
import { pinnedFetch } from './pinned-fetch.js'
import { resolveWithNodeDns } from './resolve-host.js'

let installed = false

export function installNodeRuntime(): void {
  if (installed) return
  installed = true
  // The pool starts its threads on the first job, and an idle one never keeps the process alive.
  installExtractPool(() => createExtractPool())
  installGuardedNetwork({ resolveHost: resolveWithNodeDns, pinnedFetch })
  installDirectoryLoader(loadDirectory)
  installFileSource(fileSource)
  installLlamaLoader(loadLlamaModel)
}
