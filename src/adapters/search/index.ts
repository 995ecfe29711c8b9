export { duckduckgo } from './duckduckgo.js'
export type { DuckDuckGoOptions } from './duckduckgo.js'
export { createPacer } from './pacer.js'
export type { Pacer, PacerOptions } from './pacer.js'
