/**
 * What a fetched body is, from its `content-type` (or, when the server sends none, its
 * first bytes). Only pages a model can read are accepted: HTML, text and JSON.
 */

export type ContentKind = 'html' | 'text' | 'json'

export function contentKind(contentType: string | null, head: Uint8Array): ContentKind | undefined {
  const mime = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return 'html'
  if (mime === 'application/json' || mime === 'text/json' || mime.endsWith('+json')) return 'json'
  if (mime.startsWith('text/')) return 'text'
  if (mime !== '') return undefined
  if (head.includes(0)) return undefined
  const start = new TextDecoder().decode(head.subarray(0, 512)).trimStart()
  if (start.startsWith('<')) return 'html'
  if (start.startsWith('{') || start.startsWith('[')) return 'json'
  return 'text'
}
