// `laconic-research/server`: the research server and the chat server as Web-standard handlers. No
// Node built-ins: they run in Node (see `createLiveServer` of `laconic-research/node`), Bun, Deno
// and edge runtimes. Options are each factory's first parameter; `RunHost` is the contract a host
// of your own implements (its parts: `Awaited<ReturnType<RunHost['status']>>` and so on).
export { createResearchHandler, type ResearchHandler } from './handler.js'
export { createChatHandler, type ChatHandler } from './chat-handler.js'
export { sessionStateFromMessages, REBUILT_LIMITS } from '../conversations/state-from-messages.js'
export { inProcessRuns } from './in-process-runs.js'
export type { RunHost } from './run-host.js'
export { createRequestGuard, type RequestGuard } from '../wire/request-guard.js'
