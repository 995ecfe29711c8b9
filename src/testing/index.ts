// `laconic-research/testing`: a scripted model, mock search and fetch, and the event invariants, for users' own tests.
export { scriptedLLM, type ScriptedLLM, type ScriptedLLMOptions, type ScriptedReply, type Script } from './scripted-llm.js'
export { mockSearch, searchFailure, type MockSearch, type MockSearchOptions } from './mock-search.js'
export { mockFetch, type MockFetch, type MockFetchOptions } from './mock-fetch.js'
export { assertEventInvariants } from './invariants.js'
export { sleep, InFlight } from './sleep.js'
