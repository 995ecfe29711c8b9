import { count, record, stateSchema, strings } from '../shared/resume.js'
import { SOURCE_CHARS } from './sources.js'

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
      // `index`: a checkpoint from before the sources were numbered by the run (read, then ignored).
      sources: {
        type: 'array',
        items: record({ index: count, url: { type: 'string' }, title: { type: 'string' }, text: { type: 'string', maxLength: SOURCE_CHARS } }, ['url']),
      },
    },
    ['iteration', 'knowledge', 'pastQueries', 'searched', 'queued'],
  ),
)
