/**
 * A scripted model that acts as an oracle over what it is shown, for `graph-reader`, `deep` and
 * `react`: told only the question's words, it extracts every sentence of a numbered source it
 * is shown that holds all of them (whole words, case and punctuation folded), cites it by the
 * source's number, and answers with those sentences. It knows nothing of the page beyond its
 * prompt, so whether the answering sentence reached it is the strategy's doing. Used by
 * bench/evidence.ts and test/strategies/evidence.test.ts.
 */
import type { LLMRequest } from '../src/core/contracts/providers.js'
import { normalizeText } from '../src/core/util/text.js'
import { extractorSystem, finalizerSystem, neighborSystem, plannerSystem, condenserSystem } from '../src/strategies/graph-reader/prompts.js'
import { conversationalSystem, planSystem, reportSystem, subAnswerSystem, summarySystem } from '../src/strategies/deep/prompts.js'
import { scriptedLLM, type ScriptedLLM } from '../src/testing/index.js'
import type { ScriptedReply } from '../src/testing/scripted-llm.js'

/** A sentence the oracle found, and the number of the source it was in. */
export interface Found {
  n: number
  sentence: string
}

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' })

/** The words of a text as the oracle compares them: case and punctuation folded. */
export const wordsOf = (text: string): string[] => normalizeText(text).split(' ').filter(Boolean)

/** Sentences of a text (lines joined), trimmed. */
export function sentences(text: string): { text: string; index: number }[] {
  return [...segmenter.segment(text.replace(/\s/g, ' '))].map((s) => ({ text: s.segment.trim(), index: s.index })).filter((s) => s.text)
}

/** Whether `sentence` holds every one of `words`. */
export function holds(sentence: string, words: readonly string[]): boolean {
  const own = new Set(wordsOf(sentence))
  return words.every((word) => own.has(word))
}

/** Numbered source blocks (`[n] title\nurl\n…`) of a prompt or tool result. */
export function sourceBlocks(text: string): { n: number; url: string; body: string }[] {
  const blocks: { n: number; url: string; body: string }[] = []
  for (const block of text.split(/\n(?=\[\d+\] [^\n]*\n(?:https?|file):)/)) {
    const match = /^\[(\d+)\] [^\n]*\n((?:https?|file):[^\n]*)\n?([\s\S]*)$/.exec(block)
    if (match) blocks.push({ n: Number(match[1]), url: match[2] as string, body: (match[3] ?? '').replace(/\n+$/, '') })
  }
  return blocks
}

/** Every sentence of every numbered source in `text` that holds all of `words`. */
export function findSentences(text: string, words: readonly string[]): Found[] {
  const found: Found[] = []
  for (const block of sourceBlocks(text)) {
    for (const { text: sentence } of sentences(block.body)) if (holds(sentence, words)) found.push({ n: block.n, sentence })
  }
  return found
}

const FACTS = 5

function graphReader(req: LLMRequest, question: string, words: readonly string[]): string | undefined {
  switch (req.system) {
    case plannerSystem:
      return JSON.stringify({ goal: 'find the sentence', steps: ['search'], key_elements: [], queries: [question] })
    case extractorSystem:
      return JSON.stringify({
        facts: findSentences(req.prompt, words)
          .slice(0, FACTS)
          .map((f) => ({ text: f.sentence, source: f.n })),
      })
    case neighborSystem:
      return JSON.stringify({ answerable: true, queries: [] })
    case condenserSystem:
      return JSON.stringify({ facts: [] })
    case finalizerSystem: {
      const notebook = /Notebook:\n([\s\S]*?)\n\n/.exec(`${req.prompt}\n\n`)?.[1] ?? ''
      const facts = notebook
        .split('\n')
        .filter((line) => line.startsWith('- '))
        .map((line) => line.slice(2))
      return facts.length ? facts.join(' ') : 'No facts were found.'
    }
    default:
      return undefined
  }
}

function deep(req: LLMRequest, question: string, words: readonly string[]): string | undefined {
  switch (req.system) {
    case planSystem:
      return req.prompt.includes('Answers so far:\n(none yet)')
        ? JSON.stringify({ is_complete: false, next_question: question, reasoning: 'start' })
        : JSON.stringify({ is_complete: true, reasoning: 'answered' })
    case subAnswerSystem: {
      const found = findSentences(req.prompt, words).slice(0, FACTS)
      return JSON.stringify({
        answer: found.length ? found.map((f) => `${f.sentence} [${f.n}]`).join(' ') : 'The sources do not say.',
        confidence: found.length ? 0.9 : 0,
        facts: found.map((f) => ({ text: f.sentence, sources: [f.n] })),
        need_more: false,
        queries: [],
      })
    }
    case conversationalSystem:
    case summarySystem: {
      const answers = [...req.prompt.matchAll(/^A\d+: (.*?)(?: \(confidence [^)]*\))?$/gm)].map((m) => m[1] as string)
      return answers.join(' ') || 'No findings.'
    }
    case reportSystem:
      return JSON.stringify({ title: 'Findings', main_findings: [], conclusions: [], limitations: [], recommendations: [], sources_summary: '' })
    default:
      return undefined
  }
}

/** react: search the question, read the first result, answer from what the read showed. */
function react(req: LLMRequest, question: string, words: readonly string[]): ScriptedReply {
  const tools = (req.turns ?? []).flatMap((turn) => (turn.role === 'tool' ? [turn] : []))
  const searched = tools.find((turn) => turn.name === 'search')
  const read = tools.filter((turn) => turn.name === 'read_page')
  if (!searched) return { text: '', toolCalls: [{ name: 'search', args: { query: question } }] }
  if (read.length === 0) {
    const first = sourceBlocks(searched.content)[0]
    if (first) return { text: '', toolCalls: [{ name: 'read_page', args: { url: first.url } }] }
  }
  const found = read.flatMap((turn) => findSentences(turn.content, words)).slice(0, FACTS)
  return { text: found.length ? found.map((f) => `${f.sentence} [${f.n}]`).join(' ') : 'The page does not say.' }
}

/** The oracle for one question: its text (what strategies are asked) and the words it looks for. */
export function oracleModel(question: string, words: readonly string[]): ScriptedLLM {
  return scriptedLLM({
    replies: (req) => graphReader(req, question, words) ?? deep(req, question, words) ?? react(req, question, words),
  })
}
