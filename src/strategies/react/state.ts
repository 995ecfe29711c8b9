import { EVIDENCE_CHARS } from '../shared/cited-answer.js'
import { count, record, stateSchema, strings } from '../shared/resume.js'

const text = { type: 'string' }
const toolCall = record({ id: text, name: text, args: text })
// A source's evidence is bounded when kept: a checkpoint holding more was not written by a run.
const evidence = { type: 'string', maxLength: EVIDENCE_CHARS }
const source = record({ n: { type: 'integer', minimum: 1 }, url: text, title: text, read: { type: 'boolean' }, text: evidence }, ['n', 'url', 'read'])
const outcome = record({ call: toolCall, ok: { type: 'boolean' }, content: text, note: text, finding: text }, ['call', 'ok', 'content', 'note'])
const step = record({ text, outcomes: { type: 'array', items: outcome }, followUp: text, compacted: { type: 'boolean' } }, ['text', 'outcomes'])
// A decision on a tool call, as `InterruptDecision` says it. (Before 0.2 a step kept
// `{ approved, message, arguments }`; such a checkpoint also holds `react.needsApproval` in its
// settings, so its resume is refused by the settings check before this state is read.)
const decision = {
  anyOf: [
    record({ action: { const: 'approve' } }),
    record({ action: { const: 'reject' }, reason: text }, ['action']),
    record({ action: { const: 'edit' }, args: { type: 'object' } }),
  ],
}
const pending = record({
  step: count,
  text,
  calls: { type: 'array', items: toolCall },
  waiting: text,
  decisions: { type: 'object', additionalProperties: decision },
})

/** What a react checkpoint holds (`SavedState`), checked on resume. */
export const reactState = stateSchema(
  record(
    {
      sources: { type: 'array', items: source },
      steps: { type: 'array', items: step },
      step: count,
      protocol: { enum: ['native', 'text'] },
      rejections: count,
      made: strings,
      repeats: count,
      pending,
      answerAsked: { type: 'boolean' },
    },
    ['sources', 'steps', 'step', 'protocol', 'rejections', 'made', 'repeats'],
  ),
)
