import { count, record, stateSchema, strings } from '../shared/resume.js'

const finding = record({ query: { type: 'string' }, answer: { type: 'string' }, confidence: { type: 'number' }, sources: strings }, [
  'query',
  'answer',
  'confidence',
  'sources',
])

/** What a deep checkpoint holds (`DeepState`), checked on resume. */
export const deepState = stateSchema(
  record(
    {
      step: count,
      findings: { type: 'array', items: finding },
      asked: strings,
      titles: { type: 'array', items: { ...strings, minItems: 2, maxItems: 2 } },
      queued: strings,
      pendingPlan: strings,
    },
    ['step', 'findings', 'asked', 'titles', 'queued'],
  ),
)
