/**
 * The question: words from the command line or a prompt file, with `{{KEY}}` filled from
 * `--var KEY=VALUE` (as laconic's Go CLI did with its prompt files).
 */
import { readFile } from 'node:fs/promises'
import { UsageError } from './usage-error.js'

const PLACEHOLDER = /\{\{\s*([\w.-]+)\s*\}\}/g

/** Replaces every `{{KEY}}`; a placeholder without a value is a usage error, never sent to the model as is. */
export function substituteVars(template: string, vars: Readonly<Record<string, string>>): string {
  const missing = new Set<string>()
  const text = template.replace(PLACEHOLDER, (whole, key: string) => {
    const value = vars[key]
    if (value === undefined) missing.add(key)
    return value ?? whole
  })
  if (missing.size > 0) {
    const keys = [...missing]
    throw new UsageError(`the prompt uses ${keys.map((k) => `{{${k}}}`).join(', ')}: pass ${keys.map((k) => `--var ${k}=...`).join(' ')}`)
  }
  return text
}

async function readPrompt(path: string, stdin: () => Promise<string>): Promise<string> {
  if (path === '-') return stdin()
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as { code?: string }).code
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (error as Error).message
    throw new UsageError(`cannot read --prompt ${path}: ${why}`)
  }
}

export async function questionFrom(
  source: { words: readonly string[]; prompt?: string | undefined; vars: Readonly<Record<string, string>> },
  stdin: () => Promise<string>,
): Promise<string> {
  const raw = source.prompt !== undefined ? await readPrompt(source.prompt, stdin) : source.words.join(' ')
  const question = substituteVars(raw, source.vars).trim()
  if (!question) {
    throw new UsageError(
      source.prompt !== undefined
        ? `the prompt file ${source.prompt} is empty`
        : 'no question: pass it as words (laconic "why is the sky blue?") or with --prompt FILE',
    )
  }
  return question
}
