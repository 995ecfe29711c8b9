import { record, stateSchema, strings } from '../shared/resume.js'

const str = { type: 'string' }
const section = record({ title: str, goal: str, questions: strings })
const source = record({ url: str, title: str, text: str })

/** What a report checkpoint holds (`ReportState`), checked on resume. */
export const reportState = stateSchema(
  record(
    {
      outline: record({ title: str, sections: { type: 'array', items: section, minItems: 1 } }),
      pending: { type: 'boolean' },
      written: {
        type: 'array',
        items: record({ index: { type: 'integer', minimum: 0 }, text: str, sources: { type: 'array', items: source } }),
      },
    },
    ['outline', 'written'],
  ),
)
