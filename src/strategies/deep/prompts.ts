/** A source as a prompt shows it: numbered from 1 in the order of the list. */
export interface ShownSource {
  url: string
  title: string
  text: string
}

/** A sub-answer as prompts show it, its sources already turned into prompt numbers. */
export interface ShownFinding {
  query: string
  answer: string
  confidence: number
  sourceNumbers: number[]
}

function findingLines(findings: readonly ShownFinding[]): string {
  if (!findings.length) return '(none yet)'
  return findings
    .map((f, i) => {
      const cites = f.sourceNumbers.map((n) => `[${n}]`).join('')
      return `Q${i + 1}: ${f.query}\nA${i + 1}: ${f.answer}${cites ? ` ${cites}` : ''} (confidence ${f.confidence})`
    })
    .join('\n\n')
}

function sourceLines(sources: readonly { url: string; title: string }[]): string {
  return sources.map((s, i) => `[${i + 1}] ${s.title || s.url} — ${s.url}`).join('\n')
}

export const planSystem = `You plan research one sub-question at a time.
Given the question and the answers found so far, either:
- mark the research complete when the answers already cover the question: {"is_complete": true, "reasoning": "..."}
- or give exactly one next sub-question: {"is_complete": false, "next_question": "...", "reasoning": "..."}
The next sub-question must stand alone (name the subject, no "it", "they" or "this"), be specific, and not repeat one already asked. Split a broad question: ask about one part first.
Reply with JSON only.`

export function planPrompt(args: {
  question: string
  background: string
  findings: readonly ShownFinding[]
  hasPrior: boolean
  step: number
  maxSteps: number
}): string {
  const background = args.background ? `\nBackground from the conversation (use it to name what "it" or "they" refer to):\n${args.background}\n` : ''
  const prior = args.hasPrior
    ? '\nSome answers come from earlier in the conversation. If they already answer the question, mark it complete without asking anything.\n'
    : ''
  return `Question: ${args.question}
${background}${prior}
Answers so far:
${findingLines(args.findings)}

Step ${args.step} of at most ${args.maxSteps}. JSON:`
}

export const subAnswerSystem = `You answer one research sub-question from numbered sources.
Reply with JSON only:
{"answer": "<2-4 sentences>", "confidence": <0 to 1: how fully the sources support the answer>, "facts": [{"text": "<one short fact the answer relies on>", "sources": [<source numbers>]}], "need_more": true or false, "queries": ["<follow-up web search>"]}
Use only the sources. Set need_more to true, with 1-2 queries, only when the sources miss something the answer needs.`

export function subAnswerPrompt(args: { subQuestion: string; sources: readonly ShownSource[]; searchesLeft: number }): string {
  const sources = args.sources.map((s, i) => `[${i + 1}] ${s.title}\n${s.url}\n${s.text}`).join('\n\n')
  const budget = args.searchesLeft > 0 ? `Follow-up searches left: ${args.searchesLeft}.` : 'No searches are left: answer with what the sources give.'
  return `Sub-question: ${args.subQuestion}

Sources:
${sources}

${budget} JSON:`
}

export const summarySystem = `You write the executive summary of a research report: 3 to 5 sentences that answer the question from the findings below.
Cite the sources of each claim with their numbers in square brackets, like [1] or [2][3]. Use only the findings and cite only listed sources.
Plain prose: no heading, no preamble.`

export const conversationalSystem = `You answer the user's question directly from research findings, in a few sentences.
Cite the sources of each claim with their numbers in square brackets, like [1] or [2][3]. Use only the findings and cite only listed sources; say plainly what they do not cover.
No heading, no preamble.`

export function findingsPrompt(args: { question: string; findings: readonly ShownFinding[]; sources: readonly { url: string; title: string }[] }): string {
  return `Question: ${args.question}

Findings:
${findingLines(args.findings)}

Sources:
${args.sources.length ? sourceLines(args.sources) : '(none)'}

Answer:`
}

export const reportSystem = `You write a structured research report from findings. Reply with JSON only:
{"title": "...", "main_findings": ["... [n]"], "conclusions": ["..."], "limitations": ["..."], "recommendations": ["..."], "sources_summary": "..."}
Cite sources as [n] using only the listed numbers. Keep every item to one sentence.`

export function reportPrompt(args: { question: string; findings: readonly ShownFinding[]; sources: readonly { url: string; title: string }[] }): string {
  return findingsPrompt(args).replace(/Answer:$/, 'JSON:')
}
