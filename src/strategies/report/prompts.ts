/** The report's prompts after the outline: a section's facts, its text, the introduction and the conclusion. */
import type { OutlineSection } from '../../core/contracts/interruption.js'
import { list, object, sourceNumber, text } from '../shared/schema.js'

/** A source as a section's prompts show it: numbered from 1 in the section. */
export interface ShownSource {
  url: string
  title: string
  text: string
}

export const factsSchema = object('section_facts', { facts: list(object('fact', { text: text(300), sources: list(sourceNumber, 4) }), 10) })

export const factsSystem = `You extract facts for one section of a report. Reply with JSON only:
{"facts": [{"text": "one atomic fact", "sources": [1]}]}
Only facts the numbered sources state that serve the section's goal; each cites the numbers of its sources.`

const sourceLines = (sources: readonly ShownSource[], texts: readonly string[]) =>
  sources.map((s, i) => `[${i + 1}] ${s.title ? `${s.title} — ` : ''}${s.url}\n${texts[i] || '(no text)'}`).join('\n\n')

function sectionHead(section: OutlineSection, reportTitle: string): string {
  return `Report: ${reportTitle}
Section: ${section.title}
Goal: ${section.goal}
Questions: ${section.questions.join(' | ')}`
}

/** `texts`: each source's text, already cut to the prompt's budget. */
export function factsPrompt(args: { section: OutlineSection; reportTitle: string; sources: readonly ShownSource[]; texts: readonly string[] }): string {
  return `${sectionHead(args.section, args.reportTitle)}

Sources:
${sourceLines(args.sources, args.texts)}

JSON:`
}

export const sectionSystem = `You write one section of a research report in Markdown paragraphs (no heading: it is added for you).
Use only the facts and sources given; cite each claim with the source numbers, like [1] or [2, 3]. Say plainly what the sources do not cover.`

export function sectionPrompt(args: {
  section: OutlineSection
  reportTitle: string
  words: number
  facts: readonly { text: string; sources: number[] }[]
  sources: readonly ShownSource[]
  texts: readonly string[]
}): string {
  const facts = args.facts.map((f) => `- ${f.text} ${f.sources.map((n) => `[${n}]`).join('')}`).join('\n')
  return `${sectionHead(args.section, args.reportTitle)}

Facts:
${facts || '(none extracted)'}

Sources:
${args.sources.length ? sourceLines(args.sources, args.texts) : '(none)'}

Write about ${args.words} words.

Section text:`
}

export const introductionSystem = `You write the introduction of a research report from its sections' summaries: what the report covers and what it finds, in one or two paragraphs. No heading, no citations.`
export const conclusionSystem = `You write the conclusion of a research report from its sections' summaries: what follows from the findings and what stays uncertain, in one or two paragraphs. No heading, no citations.`

/** `summaries`: each section's summary, already cut to the prompt's budget. */
export function framePrompt(args: { question: string; title: string; sections: readonly string[]; summaries: readonly string[] }): string {
  return `Question: ${args.question}
Report: ${args.title}

Sections:
${args.sections.map((title, i) => `${i + 1}. ${title}: ${args.summaries[i] || '(empty)'}`).join('\n')}

Text:`
}
