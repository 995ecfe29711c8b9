/**
 * React's tool notes, kept flat: the numbered sources its tools found, and its steps. Recent steps go to
 * the model whole, as conversation turns; once the request would pass the token budget, the
 * oldest steps fold into one short note each in the prompt (what was called, which sources it
 * gave), so the prompt stays within a small model's context however many steps run.
 */
import type { ChatTurn, ToolCall } from '../../core/contracts/providers.js'
import { requestText } from '../../core/contracts/tool-args.js'
import { estimateTokens, truncateAtSentence } from '../../core/util/text.js'
import { normalizeUrl } from '../../core/util/urls.js'
import { evidenceText } from '../shared/cited-answer.js'

export interface Source {
  n: number
  url: string
  title?: string
  /** The page itself was read (not only its search snippet). */
  read: boolean
  /** What the tools showed the model of it (snippets, the page text read), bounded: the evidence its citations are checked against. */
  text?: string
}

export interface ToolOutcome {
  call: ToolCall
  ok: boolean
  /** What the model sees, bounded. */
  content: string
  /** One line for the notes once the step is compacted. */
  note: string
  /** What the call found, for the knowledge the run leaves (the note stands in when absent). */
  finding?: string
}

export interface StepRecord {
  /** The model's text of the step (a thought, or a rejected answer). */
  text: string
  outcomes: ToolOutcome[]
  /** Said to the model after the step: a gate's rejection, a nudge back to the protocol. */
  followUp?: string
  /** Folded into the notes. */
  compacted?: boolean
}

/** The plain JSON a checkpoint keeps. */
export interface ToolNotesState {
  sources: Source[]
  steps: StepRecord[]
}

/** Notes in the prompt at most, in characters: the oldest go first. */
const NOTES_CHARS = 2400
/** Source lines in the prompt at most: those cited are the ones read, kept first. */
const SOURCE_LINES = 40

export class ToolNotes {
  readonly sources: Source[]
  readonly steps: StepRecord[]
  private readonly byUrl = new Map<string, Source>()

  constructor(state?: ToolNotesState) {
    this.sources = state?.sources.map((s) => ({ ...s })) ?? []
    this.steps = state?.steps.map((s) => ({ ...s, outcomes: [...s.outcomes] })) ?? []
    for (const source of this.sources) this.byUrl.set(normalizeUrl(source.url), source)
  }

  state(): ToolNotesState {
    return { sources: this.sources, steps: this.steps }
  }

  /** The source's number, given now when it is new. */
  source(url: string, title: string | undefined, read: boolean): Source {
    const key = normalizeUrl(url)
    let source = this.byUrl.get(key)
    if (!source) {
      source = { n: this.sources.length + 1, url, ...(title ? { title } : {}), read }
      this.sources.push(source)
      this.byUrl.set(key, source)
    }
    if (read) source.read = true
    if (title && !source.title) source.title = title
    return source
  }

  /** Adds `text` to what the model was shown of `source` (its evidence), within the evidence bound. */
  saw(source: Source, text: string): void {
    const evidence = evidenceText([source.text ?? '', text])
    if (evidence) source.text = evidence
  }

  /** A source by number, or by its URL (a model may cite either). */
  find(ref: number | string): Source | undefined {
    return typeof ref === 'number' ? this.sources[ref - 1] : this.byUrl.get(normalizeUrl(ref))
  }

  /**
   * The request for the next step: the prompt (question, earlier answers, knowledge, sources, notes of compacted steps) and
   * the turns of the steps still whole. Folds the oldest whole steps into notes while the
   * request is over `budget` tokens; the last step stays whole.
   */
  request(args: { system: string; question: string; earlier?: string; knowledge: string; textProtocol: boolean; budget: number }): {
    prompt: string
    turns: ChatTurn[]
  } {
    let built = this.build(args)
    for (let i = 0; i < this.steps.length - 1 && estimateTokens(requestText({ system: args.system, ...built })) > args.budget; i++) {
      const step = this.steps[i]!
      if (step.compacted) continue
      step.compacted = true
      built = this.build(args)
    }
    return built
  }

  private build(args: { question: string; earlier?: string; knowledge: string; textProtocol: boolean }): { prompt: string; turns: ChatTurn[] } {
    const notes = this.steps.filter((s) => s.compacted).flatMap((s) => s.outcomes.map((o) => o.note))
    const keptNotes: string[] = []
    let chars = 0
    for (const note of [...notes].reverse()) {
      if (chars + note.length > NOTES_CHARS) break
      keptNotes.unshift(note)
      chars += note.length + 1
    }
    const sources = [...this.sources]
      .sort((a, b) => Number(b.read) - Number(a.read) || a.n - b.n)
      .slice(0, SOURCE_LINES)
      .sort((a, b) => a.n - b.n)
    const prompt = [
      `Question: ${args.question}`,
      args.earlier ? `Earlier in this conversation:\n${args.earlier}` : '',
      args.knowledge ? `Known from earlier research:\n${args.knowledge}` : '',
      sources.length ? `Sources so far (cite them as [n]):\n${sources.map(sourceLine).join('\n')}` : '',
      keptNotes.length ? `Notes from earlier steps:\n${keptNotes.join('\n')}` : '',
    ]
      .filter(Boolean)
      .join('\n\n')
    return { prompt, turns: this.steps.filter((s) => !s.compacted).flatMap((s) => turnsOf(s, args.textProtocol)) }
  }
}

function sourceLine(source: Source): string {
  return `[${source.n}] ${source.title ? `${source.title} — ` : ''}${source.url}${source.read ? ' (read)' : ''}`
}

/** A step as turns: native calls and their results, or the text protocol's reply and Observation. */
function turnsOf(step: StepRecord, textProtocol: boolean): ChatTurn[] {
  const turns: ChatTurn[] = []
  if (textProtocol) {
    turns.push({ role: 'assistant', text: step.text, toolCalls: [] })
    const observation = step.outcomes.map((o) => `Observation: ${o.content}`).join('\n\n')
    const user = [observation, step.followUp ?? ''].filter(Boolean).join('\n\n')
    if (user) turns.push({ role: 'user', text: user })
    return turns
  }
  if (step.text || step.outcomes.length) turns.push({ role: 'assistant', text: step.text, toolCalls: step.outcomes.map((o) => o.call) })
  for (const outcome of step.outcomes) {
    turns.push({ role: 'tool', callId: outcome.call.id, name: outcome.call.name, content: outcome.content, ...(outcome.ok ? {} : { isError: true }) })
  }
  if (step.followUp) turns.push({ role: 'user', text: step.followUp })
  return turns
}

/** A result cut to `chars` at a sentence, marked when cut. */
export function bound(text: string, chars: number): string {
  if (text.length <= chars) return text
  return `${truncateAtSentence(text, chars)} […cut: ${text.length - chars} more characters]`
}
