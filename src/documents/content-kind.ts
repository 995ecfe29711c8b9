/**
 * What a fetched body is, from its `content-type` and its first bytes. Only what a model can
 * read is accepted: HTML, text, JSON, PDF and DOCX. A PDF is known by its `%PDF-` signature
 * too, since servers often send one as `application/octet-stream`, with no type, or even as
 * `text/html`; a DOCX (a zip file) only by its type, or by its `.docx` name when undeclared.
 */

export type ContentKind = 'html' | 'text' | 'json' | 'pdf' | 'docx'

const PDF_TYPES = new Set(['application/pdf', 'application/x-pdf'])
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
/** Types that say nothing about the content: the bytes decide. */
const UNDECLARED = new Set([
  '',
  'application/octet-stream',
  'binary/octet-stream',
  'application/download',
  'application/x-download',
  'application/force-download',
])

const mimeOf = (contentType: string | null) => (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? ''

/** How far into a file its `%PDF-` may start (readers accept a little junk before it). */
const PDF_SIGNATURE_WITHIN = 1024

/** True when `head` holds the `%PDF-` signature near its start. */
export function isPdfSignature(head: Uint8Array): boolean {
  const end = Math.min(head.length, PDF_SIGNATURE_WITHIN) - 5
  for (let i = 0; i <= end; i++) {
    if (head[i] === 0x25 && head[i + 1] === 0x50 && head[i + 2] === 0x44 && head[i + 3] === 0x46 && head[i + 4] === 0x2d) return true
  }
  return false
}

const isZip = (head: Uint8Array) => head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04

const pathOf = (url: string | undefined) => (url && URL.canParse(url) ? new URL(url).pathname : '')

/** Whether a body of this declared type may be readable, judged before it is downloaded. */
export function mayBeReadable(contentType: string | null): boolean {
  const mime = mimeOf(contentType)
  return UNDECLARED.has(mime) || PDF_TYPES.has(mime) || mime === DOCX_TYPE || contentKind(contentType, new Uint8Array()) !== undefined
}

/** Whether a body may be a document (PDF, DOCX), which is given the larger download cap. */
export function mayBeDocument(contentType: string | null, head: Uint8Array): boolean {
  const mime = mimeOf(contentType)
  return UNDECLARED.has(mime) || PDF_TYPES.has(mime) || mime === DOCX_TYPE || isPdfSignature(head)
}

export function contentKind(contentType: string | null, head: Uint8Array, url?: string): ContentKind | undefined {
  const mime = mimeOf(contentType)
  // The signature wins over an undeclared or a text type; a server that says PDF is believed
  // (a broken PDF then ends as a typed document warning, not as garbage text).
  if (PDF_TYPES.has(mime) || (isPdfSignature(head) && (UNDECLARED.has(mime) || mime.startsWith('text/') || mime === 'application/xhtml+xml'))) return 'pdf'
  if (mime === DOCX_TYPE) return 'docx'
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return 'html'
  if (mime === 'application/json' || mime === 'text/json' || mime.endsWith('+json')) return 'json'
  if (mime.startsWith('text/')) return 'text'
  if (!UNDECLARED.has(mime)) return undefined
  if (isZip(head)) return /\.docx$/i.test(pathOf(url)) ? 'docx' : undefined
  // An octet-stream that is no document is binary as far as a model is concerned.
  if (mime !== '' || head.includes(0)) return undefined
  const start = new TextDecoder().decode(head.subarray(0, 512)).trimStart()
  if (start.startsWith('<')) return 'html'
  if (start.startsWith('{') || start.startsWith('[')) return 'json'
  return 'text'
}
