/**
 * Whether an HTML page's text is written by its scripts: the readable text is empty or tiny and
 * the markup says so (a `<noscript>` hint, an empty app root, or several scripts). `httpFetch`
 * asks its `fallback` (a browser) to read such a page. Linear regex scans over a capped body.
 */

/** Readable text shorter than this (characters, spaces trimmed) counts as tiny. */
export const TINY_TEXT = 200

const NOSCRIPT = /<noscript\b/i
const APP_ROOT = /<div\b[^>]*\bid\s*=\s*["']?(?:root|app|__next|__nuxt|main|svelte)\b[^>]*>\s*<\/div>/i
const SCRIPT = /<script\b/gi

export function looksScriptRendered(html: string, readable: string): boolean {
  if (readable.trim().length >= TINY_TEXT) return false
  const scripts = html.match(SCRIPT)?.length ?? 0
  if (scripts === 0) return false
  return NOSCRIPT.test(html) || APP_ROOT.test(html) || scripts >= 3
}
