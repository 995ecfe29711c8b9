export { httpFetch } from './http-fetch.js'
export type { HttpFetchOptions } from './http-fetch.js'
export { isBlockedAddress } from './ssrf.js'
export type { ResolveHost } from './ssrf.js'
