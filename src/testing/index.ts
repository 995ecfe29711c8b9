// `laconic-research/testing`: a scripted model, mock search and fetch, and the event invariants, for users' own tests.
export { scriptedLLM, type ScriptedLLM } from './scripted-llm.js'
export { mockSearch, searchFailure, type MockSearch } from './mock-search.js'
export { mockFetch, type MockFetch } from './mock-fetch.js'
export { assertEventInvariants } from './invariants.js'
export { sleep, InFlight } from './sleep.js'
