/**
 * A document's content hash: SHA-256 (Web Crypto, so it runs off the main thread's JavaScript)
 * over what the chunks depend on, the way they are cut and embedded included, so a change of
 * chunk size or model re-embeds what it must and nothing else.
 */
export async function contentHash(recipe: string, content: Uint8Array | string): Promise<string> {
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content
  const head = new TextEncoder().encode(`${recipe}\0`)
  const joined = new Uint8Array(head.length + bytes.length)
  joined.set(head)
  joined.set(bytes, head.length)
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', joined))
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('')
}
