import type { SearchResult } from '../../core/contracts/providers.js'
import type { Slot } from './parse.js'

/** Results as the model sees them: numbered from 1, snippets already cut to size. */
function numbered(sources: readonly SearchResult[]): string {
  if (!sources.length) return '(no results)'
  return sources.map((s, i) => `[${i + 1}] ${s.title}\n${s.url}\n${s.snippet}`).join('\n\n')
}

function slotLines(slots: readonly Slot[]): string {
  return slots.map((s) => `- ${s.name}: ${s.evidence ?? '(not found)'}`).join('\n')
}

export const queriesSystem = `You write web search queries for a research question.
Write 3 to 5 short, specific queries that together cover the question, each from a different angle.
Reply with JSON only, no prose: {"queries": ["<query>"]}
Example: ["2022 world cup final winner", "2022 world cup final score", "2022 world cup final date"]`

export function queriesPrompt(question: string): string {
  return `Question: ${question}

JSON with 3-5 search queries:`
}

export const reflectSystem = `You check whether search results answer a question.
Name the slots the answer needs (for example winner, score, date). Fill each slot with short evidence from the results, citing the result number like [2], or null when the results do not contain it.
Reply with JSON only:
{"slots": {"<slot>": "<evidence [n]>" or null}, "need_more": true or false, "new_queries": ["<search query for a missing slot>"]}
Set need_more to true only when a slot is null, and then give 1-3 new queries that target the missing slots and differ from the searches already run.`

export function reflectPrompt(args: { question: string; searched: readonly string[]; sources: readonly SearchResult[] }): string {
  return `Question: ${args.question}

Searches already run:
${args.searched.length ? args.searched.map((q) => `- ${q}`).join('\n') : '(none yet)'}

Results:
${numbered(args.sources)}

JSON:`
}

export function synthesizeSystem(maxWords: number): string {
  return `You answer a question from numbered search results, in at most ${maxWords} words.
Cite the results that support each claim with their numbers in square brackets right after the claim, like [1] or [2][3]. Use only these results and cite only numbers from the list; if they do not answer the question, say so.
Plain prose: no preamble, no heading, no list of sources.`
}

export function synthesizePrompt(args: { question: string; slots: readonly Slot[]; sources: readonly SearchResult[] }): string {
  const checklist = args.slots.length ? `\nWhat the answer needs:\n${slotLines(args.slots)}\n` : ''
  return `Question: ${args.question}
${checklist}
Results:
${numbered(args.sources)}

Answer:`
}
