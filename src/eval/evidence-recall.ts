/**
 * Evidence recall: did each piece of a row's evidence reach a model prompt? A passage counts
 * when half of its 8-word runs appear in the prompts (a snippet or a chunk carries part of it;
 * a short passage must appear whole); a page counts when its URL does.
 */
import type { LLMProvider, LLMRequest } from '../core/contracts/providers.js'
import type { Evidence } from './dataset.js'

const SHINGLE = 8

function words(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter(Boolean)
}

function shingles(list: readonly string[]): string[] {
  const out: string[] = []
  for (let at = 0; at + SHINGLE <= list.length; at++) out.push(list.slice(at, at + SHINGLE).join(' '))
  return out
}

function bareUrl(url: string): string {
  let decoded = url
  try {
    decoded = decodeURI(url)
  } catch {}
  return decoded.replace(/^[a-z]+:\/\//i, '').replace(/\/+$/, '')
}

/** The share of `evidence` found in `prompts`, in [0, 1]; `undefined` with no evidence. */
export function evidenceRecall(evidence: readonly Evidence[] | undefined, prompts: readonly string[]): number | undefined {
  if (!evidence?.length) return undefined
  const joined = prompts.join('\n')
  const promptWords = words(joined)
  const flat = ` ${promptWords.join(' ')} `
  const promptShingles = new Set(shingles(promptWords))
  let decodedPrompts = joined
  try {
    decodedPrompts = decodeURI(joined)
  } catch {}
  let reached = 0
  for (const item of evidence) {
    if (item.text) {
      const own = words(item.text)
      const runs = shingles(own)
      const found =
        runs.length === 0 ? own.length > 0 && flat.includes(` ${own.join(' ')} `) : runs.filter((run) => promptShingles.has(run)).length * 2 >= runs.length
      if (found) reached++
    } else if (item.url && decodedPrompts.includes(bareUrl(item.url))) reached++
  }
  return reached / evidence.length
}

function requestTexts(req: LLMRequest): string[] {
  const texts = [req.system ?? '', req.prompt]
  for (const turn of req.turns ?? []) texts.push(turn.role === 'tool' ? turn.content : turn.text)
  return texts
}

/** The model, telling `sink` the text of every prompt it is sent. */
export function watchPrompts(llm: LLMProvider, sink: string[]): LLMProvider {
  return {
    ...(llm.model !== undefined ? { model: llm.model } : {}),
    ...(llm.local !== undefined ? { local: llm.local } : {}),
    stream(req) {
      sink.push(...requestTexts(req))
      return llm.stream(req)
    },
  }
}
