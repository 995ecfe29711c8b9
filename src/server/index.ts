// `laconic-research/server`: the research server as one Web-standard handler. No Node built-ins:
// it runs in Node (see `createLiveServer` of `laconic-research/node`), Bun, Deno and edge runtimes.
export {
  createResearchHandler,
  type ResearchHandler,
  type ResearchHandlerOptions,
  type ResearchHandlerLimits,
  type ClientInfo,
} from './handler.js'
export {
  createChatHandler,
  type ChatHandler,
  type ChatHandlerOptions,
  type ChatAgent,
  type StartedChatTurn,
} from './chat-handler.js'
export { sessionStateFromMessages, REBUILT_LIMITS } from '../conversations/state-from-messages.js'
export { inProcessRuns, type InProcessRuns, type InProcessRunsOptions, type LiveAgent } from './in-process-runs.js'
export type { RunHost, RunStatus, RunState, StartedRun, SourceText } from './run-host.js'
export { createRequestGuard, type RequestGuard, type RequestGuardOptions, type RequestRefusal, type GuardedRequest } from '../wire/request-guard.js'
