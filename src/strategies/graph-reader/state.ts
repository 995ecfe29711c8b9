import { count, record, stateSchema, strings } from '../shared/resume.js'

const explore = record({
  frontier: { type: 'array', items: record({ query: { type: 'string' }, depth: count }, ['query', 'depth']) },
  visited: strings,
  searched: strings,
  readUrls: strings,
  titles: { type: 'array' },
  explored: count,
  answered: { type: 'boolean' },
})

/** What a graph-reader checkpoint holds (`GraphReaderState`), checked on resume. */
export const graphReaderState = stateSchema(record({ keyElements: strings, explore, pendingPlan: strings }, ['keyElements', 'explore']))
