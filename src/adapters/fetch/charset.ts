/**
 * Which character encoding a fetched body uses, in the order browsers decide it:
 * byte-order mark, then the `content-type` charset, then a `<meta>` in the first
 * kilobyte (HTML only), else UTF-8. Unknown labels fall back to UTF-8.
 */

const META_CHARSET = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i

function supported(label: string | undefined): string | undefined {
  if (!label) return undefined
  try {
    return new TextDecoder(label).encoding
  } catch {
    return undefined
  }
}

export function detectCharset(contentType: string | null, bytes: Uint8Array, html: boolean): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8'
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be'
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le'
  const fromHeader = supported(/charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(contentType ?? '')?.[1])
  if (fromHeader) return fromHeader
  if (html) {
    const head = new TextDecoder('windows-1252').decode(bytes.subarray(0, 1024))
    const fromMeta = supported(META_CHARSET.exec(head)?.[1])
    // A page whose bytes we could read as ASCII is not UTF-16, whatever its meta says.
    if (fromMeta) return fromMeta.startsWith('utf-16') ? 'utf-8' : fromMeta
  }
  return 'utf-8'
}

/**
 * windows-1252 bytes 0x80–0x9F (curly quotes, dashes, €). Node 20's TextDecoder decodes the
 * label as ISO-8859-1 and turns them into control characters; pages labelled ISO-8859-1
 * use them all the time, which is why the Encoding standard maps both labels here.
 */
const WINDOWS_1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ'

function decodeWindows1252(bytes: Uint8Array): string {
  let out = ''
  for (let start = 0; start < bytes.length; start += 8192) {
    const codes = Array.from(bytes.subarray(start, start + 8192), (byte) => (byte >= 0x80 && byte <= 0x9f ? WINDOWS_1252_HIGH.charCodeAt(byte - 0x80) : byte))
    out += String.fromCharCode(...codes)
  }
  return out
}

export function decodeBody(bytes: Uint8Array, charset: string): string {
  return charset === 'windows-1252' ? decodeWindows1252(bytes) : new TextDecoder(charset).decode(bytes)
}
