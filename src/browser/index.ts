export { browserFetch } from './browser-fetch.js'
export type { BrowserFetchOptions, BrowserFetchProvider } from './browser-fetch.js'
