import { installNodeRuntime } from './runtime.js'
export { createLiveServer } from './live-server.js'
export { fileCheckpoints } from './file-checkpoints.js'
export { nodeListener } from './node-listener.js'
export { fileSessions } from './file-sessions.js'

// `import 'laconic-research/node'` installs Node's parts into the Web-standard modules (a
// setup whose bundler picked the Web build of /adapters or /kb adds this one line).
installNodeRuntime()
