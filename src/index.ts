export { createAgent, registerStrategy, strategyNames, type Agent, type Session } from './agent.js'
export * from './core/index.js'
export { scratchpad, parsePlannerDecision, type PlannerDecision } from './strategies/scratchpad/index.js'
