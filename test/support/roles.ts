/**
 * Which role of a built-in strategy a model request is for, told by what its system prompt asks
 * (the prompt's opening words): for tests that serve every role from one model, such as a CLI run
 * against one fake backend. A prompt that opens otherwise has no role here, so a reworded prompt
 * fails its tests rather than being answered as another role.
 */
const OPENINGS = {
  'scratchpad planner': 'You are the planner of a research agent.',
  'scratchpad synthesizer': 'You maintain the knowledge notes of a research agent.',
  'scratchpad finalizer': "You answer the user's question from research notes",
  'graph-reader planner': 'You plan web research.',
  'graph-reader extractor': 'You extract atomic facts for a research question',
  'graph-reader neighbor': 'You steer web research.',
  'graph-reader condenser': 'You condense research notes.',
  'graph-reader finalizer': "You answer the user's question from a notebook of facts",
  'reflect queries': 'You write web search queries for a research question.',
  'reflect reflection': 'You check whether search results answer a question.',
  'reflect synthesizer': 'You answer a question from numbered search results',
  'deep planner': 'You plan research one sub-question at a time.',
  'deep sub-answer': 'You answer one research sub-question',
  'deep summary': 'You write the executive summary of a research report',
  'deep conversational': "You answer the user's question directly from research findings",
  'deep report': 'You write a structured research report from findings.',
  'report outline': 'You plan a long research report.',
  'report facts': 'You extract facts for one section of a report.',
  'report section': 'You write one section of a research report',
  'report introduction': 'You write the introduction of a research report',
  'report conclusion': 'You write the conclusion of a research report',
  react: 'You are a careful research agent.',
  'claim judge': 'You check sentences against the source text',
} as const

export type Role = keyof typeof OPENINGS

export function roleOf(system: string | undefined): Role | undefined {
  if (system === undefined) return undefined
  return (Object.keys(OPENINGS) as Role[]).find((role) => system.startsWith(OPENINGS[role]))
}
