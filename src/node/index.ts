import { installNodeRuntime } from './runtime.js'
export { createLiveServer, type LiveServerLimits, type LiveServerOptions } from './live-server.js'
export type { LiveAgent } from '../server/in-process-runs.js'
export { fileCheckpoints } from './file-checkpoints.js'
export { nodeListener, type WebHandler } from './node-listener.js'
export { fileSessions, type FileSessionsOptions } from './file-sessions.js'

// `import 'laconic-research/node'` installs Node's parts into the Web-standard modules (a
// setup whose bundler picked the Web build of /adapters or /kb adds this one line).
installNodeRuntime()
