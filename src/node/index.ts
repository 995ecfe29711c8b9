export { createLiveServer, type LiveServerLimits, type LiveServerOptions } from './live-server.js'
export type { LiveAgent } from '../server/in-process-runs.js'
export { fileCheckpoints } from './file-checkpoints.js'
export { nodeListener, type WebHandler } from './node-listener.js'
