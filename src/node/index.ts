export { createLiveServer, MAX_QUESTION_CHARS, type LiveAgent, type LiveServerOptions } from './live-server.js'
export { livePage, type LivePageOptions } from './live-page.js'
export { hostAllowed } from './allowed-host.js'
export { fileCheckpoints } from './file-checkpoints.js'
