import { count, record, stateSchema, strings } from '../shared/resume.js'

/** What a scratchpad checkpoint holds (`ScratchpadState`), checked on resume. */
export const scratchpadState = stateSchema(
  record(
    {
      iteration: count,
      knowledge: { type: 'string' },
      pastQueries: strings,
      searched: strings,
      queued: strings,
      pendingPlan: strings,
      sources: { type: 'array', items: record({ index: count, url: { type: 'string' }, title: { type: 'string' } }, ['index', 'url']) },
    },
    ['iteration', 'knowledge', 'pastQueries', 'searched', 'queued'],
  ),
)
