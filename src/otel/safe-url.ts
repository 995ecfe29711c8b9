/**
 * A URL fit for a span attribute: credentials removed, as the `url.full` convention asks.
 * Undefined for text that is not a URL, so nothing unparsed reaches a trace backend.
 */
export function safeUrl(raw: string): string | undefined {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return undefined
  }
  url.username = ''
  url.password = ''
  return url.href
}
