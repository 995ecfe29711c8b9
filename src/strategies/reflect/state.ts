import { count, record, stateSchema, strings } from '../shared/resume.js'

/** What a reflect checkpoint holds (`ReflectState`), checked on resume. */
export const reflectState = stateSchema(
  record(
    {
      round: count,
      queries: strings,
      searched: strings,
      resultsPerQuery: { type: 'array', items: { type: 'array', items: { type: 'object' } } },
      queriesRun: strings,
      done: { type: 'boolean' },
      capped: { type: 'boolean' },
      reflection: record({ slots: { type: 'array' } }),
      pendingPlan: strings,
    },
    ['round', 'queries', 'searched', 'resultsPerQuery', 'queriesRun', 'done', 'capped', 'reflection'],
  ),
)
