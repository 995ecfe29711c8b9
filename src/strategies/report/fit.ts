import { estimateTokens } from '../../core/util/text.js'

/** Characters per estimated token (`estimateTokens` counts 4). */
const CHARS_PER_TOKEN = 4

/**
 * A prompt that fits the context: `build(maxChars)` makes the prompt with its variable part (the
 * sources, the summaries) within `maxChars`; the system text, the prompt and the `maxTokens` of
 * the reply together stay within `contextTokens` (estimated). The budget shrinks until it fits;
 * past a few tries the prompt is cut, so nothing sent is ever over.
 */
export function fitPrompt(args: { system: string; maxTokens: number; contextTokens: number; build: (maxChars: number) => string }): string {
  const room = args.contextTokens - args.maxTokens - estimateTokens(args.system)
  const fits = (prompt: string) => estimateTokens(prompt) <= room
  let maxChars = Math.max(0, room * CHARS_PER_TOKEN - args.build(0).length)
  for (let attempt = 0; attempt < 8; attempt++) {
    const prompt = args.build(maxChars)
    if (fits(prompt)) return prompt
    maxChars = Math.floor(maxChars * 0.8)
  }
  return args.build(0).slice(0, Math.max(0, room * CHARS_PER_TOKEN))
}

/** `parts` cut to share `maxChars` evenly (a part shorter than its share leaves the rest to the others). */
export function shareChars(parts: readonly string[], maxChars: number): string[] {
  const out = parts.map(() => '')
  let left = maxChars
  const order = parts.map((part, i) => ({ part, i })).sort((a, b) => a.part.length - b.part.length)
  order.forEach(({ part, i }, k) => {
    const share = Math.floor(left / (order.length - k))
    out[i] = part.length <= share ? part : cutAtSpace(part, share)
    left -= out[i]!.length
  })
  return out
}

function cutAtSpace(text: string, maxChars: number): string {
  if (maxChars <= 0) return ''
  const cut = text.slice(0, maxChars)
  const space = cut.lastIndexOf(' ')
  return `${space > maxChars / 2 ? cut.slice(0, space) : cut}…`.slice(0, maxChars)
}
