/**
 * Research in another language (`language` on the agent or a run, a BCP 47 tag): every model
 * call of the run but the claim judge's gets one line appended to its system prompt, so every
 * strategy, built in or not, answers and writes its queries in that language without a copy of
 * the instruction in each.
 */
import { LaconicError } from '../contracts/laconic-error.js'
import type { ModelRole } from '../contracts/strategy-types.js'

/** `value` as a canonical BCP 47 tag (`de`, `pt-BR`), or undefined when unset; anything else is a `config` error naming `name`. */
export function languageTag(value: unknown, name = 'language'): string | undefined {
  if (value === undefined) return undefined
  if (typeof value === 'string' && value.trim()) {
    try {
      const [tag] = Intl.getCanonicalLocales(value.trim())
      if (tag) return tag
    } catch {
      // Not a well-formed tag: the error below says so.
    }
  }
  throw new LaconicError(`\`${name}\` must be a BCP 47 language tag, got ${JSON.stringify(value) ?? String(value)}`, {
    code: 'config',
    hint: "e.g. 'de', 'fr', 'pt-BR'",
  })
}

/** The run's language: its own `language` wins over the agent's. */
export function runLanguage(agent: unknown, run: unknown): string | undefined {
  return run !== undefined ? languageTag(run) : languageTag(agent)
}

/** The language's English name with its tag (`German (de)`), the tag alone where the runtime has no name for it. */
export function languageLabel(tag: string): string {
  let name: string | undefined
  try {
    name = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' }).of(tag)
  } catch {
    name = undefined
  }
  return name && name !== tag ? `${name} (${tag})` : tag
}

/** The line that tells a model the run's language. */
export function languageLine(tag: string): string {
  const label = languageLabel(tag)
  const english = tag.toLowerCase().split('-')[0] === 'en'
  return [
    `Language: write everything meant for the reader (answers, reports, notes, facts) in ${label}, whatever the language of the sources.`,
    english
      ? `Write search queries in ${label}.`
      : `Write search queries in ${label}; where sources in English are likely to be better, add the same query in English too.`,
    'Keep [n] citation markers, JSON keys and the keywords the format asks for exactly as given.',
  ].join(' ')
}

/** The claim judge's verdicts are read by the run, not the reader: its prompt stays as it is. */
const UNTOLD: ReadonlySet<ModelRole> = new Set<ModelRole>(['verifier'])

/** `system` with the language line appended (the line alone when there is none); unchanged without a language or for an untold role. */
export function withLanguage(system: string | undefined, tag: string | undefined, role: ModelRole): string | undefined {
  if (!tag || UNTOLD.has(role)) return system
  const line = languageLine(tag)
  return system ? `${system}\n\n${line}` : line
}
