import { installNodeRuntime } from '../node/runtime.js'
export { browserFetch } from './browser-fetch.js'
export type { BrowserFetchOptions, BrowserFetchProvider } from './browser-fetch.js'

// browserFetch reads pages with the extraction pool and dials through the DNS-pinned guard:
// Node's parts, installed on import as Node's build of /adapters installs them.
installNodeRuntime()
