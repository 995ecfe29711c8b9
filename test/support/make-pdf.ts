/**
 * Small PDFs built byte by byte for tests and benchmarks: text pages in Helvetica (ASCII), and
 * the raw pieces (objects, streams, the cross-reference table) that hostile files are made of.
 */
import { constants, createDeflate } from 'node:zlib'

const encoder = new TextEncoder()

export type PdfPart = string | Uint8Array

/** A file from its objects (object n is `objects[n - 1]`, body only), root at object `root`. */
export function buildPdf(objects: readonly PdfPart[], root = 1, { xref = true }: { xref?: boolean } = {}): Uint8Array {
  const parts: Uint8Array[] = [encoder.encode('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n')]
  let length = parts[0]!.length
  const offsets: number[] = []
  const push = (part: PdfPart) => {
    const bytes = typeof part === 'string' ? encoder.encode(part) : part
    parts.push(bytes)
    length += bytes.length
  }
  objects.forEach((body, index) => {
    offsets.push(length)
    push(`${index + 1} 0 obj\n`)
    push(body)
    push('\nendobj\n')
  })
  const start = length
  if (xref) {
    push(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`)
    for (const offset of offsets) push(`${String(offset).padStart(10, '0')} 00000 n \n`)
  }
  push(`trailer\n<< /Size ${objects.length + 1} /Root ${root} 0 R >>\nstartxref\n${xref ? start : 0}\n%%EOF\n`)
  const out = new Uint8Array(length)
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

/** A stream object's body: its dictionary entries and bytes. */
export function stream(data: PdfPart, dictionary = ''): Uint8Array {
  const bytes = typeof data === 'string' ? encoder.encode(data) : data
  const head = encoder.encode(`<< /Length ${bytes.length} ${dictionary}>>\nstream\n`)
  const tail = encoder.encode('\nendstream')
  const out = new Uint8Array(head.length + bytes.length + tail.length)
  out.set(head)
  out.set(bytes, head.length)
  out.set(tail, head.length + bytes.length)
  return out
}

const escapeText = (text: string) => text.replace(/[\\()]/g, (c) => `\\${c}`)

/** A page's content stream that writes `lines` top-down. */
export function textContent(lines: readonly string[]): string {
  return `BT /F1 11 Tf 14 TL 72 720 Td ${lines.map((line) => `(${escapeText(line)}) Tj T*`).join(' ')} ET`
}

/**
 * A text PDF: one page per entry, each page's lines written in Helvetica. Objects: 1 catalog,
 * 2 pages, 3 font, then per page its page object and its content stream.
 */
export function textPdf(pages: readonly (readonly string[])[], { title }: { title?: string } = {}): Uint8Array {
  const objects: PdfPart[] = ['<< /Type /Catalog /Pages 2 0 R >>', '', '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>']
  const kids: string[] = []
  for (const lines of pages) {
    const page = objects.length + 1
    kids.push(`${page} 0 R`)
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${page + 1} 0 R >>`)
    objects.push(stream(textContent(lines)))
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${pages.length} >>`
  if (title) objects.push(`<< /Title (${escapeText(title)}) >>`)
  const file = buildPdf(objects)
  if (!title) return file
  // The Info dictionary is named in the trailer.
  const text = new TextDecoder('latin1').decode(file).replace('/Root 1 0 R', `/Root 1 0 R /Info ${objects.length} 0 R`)
  return Uint8Array.from(text, (c) => c.charCodeAt(0))
}

/**
 * zlib data that inflates to `blocks` × 16 MiB of zeros, at about 1/1000 of that size: one
 * fully flushed block compressed once and repeated (the checksum at the end is not the real
 * one; inflaters that stop at the size they need never read it).
 */
export async function zeroBomb(blocks: number): Promise<Uint8Array> {
  const zeros = new Uint8Array(16 * 1024 * 1024)
  const deflate = createDeflate({ level: 9 })
  const chunks: Buffer[] = []
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk))
  const flushed = async () => {
    await new Promise<void>((resolve) => deflate.flush(constants.Z_FULL_FLUSH, () => resolve()))
    const out = Buffer.concat(chunks.splice(0))
    return out
  }
  deflate.write(zeros)
  const first = await flushed()
  deflate.write(zeros)
  const repeated = await flushed()
  const ended = new Promise<void>((resolve) => deflate.on('end', () => resolve()))
  deflate.end()
  await ended
  const last = Buffer.concat(chunks.splice(0))
  return Buffer.concat([first, ...Array.from({ length: Math.max(0, blocks - 1) }, () => repeated), last])
}
