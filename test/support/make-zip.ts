/**
 * Small ZIP archives built byte by byte for tests and benchmarks: real entries (deflated by
 * zlib) beside hostile ones, whose declared sizes may lie and whose data may be a bomb: raw
 * deflate that inflates to gigabytes from a few megabytes (one fully flushed block compressed
 * once and repeated).
 */
import { constants, createDeflateRaw, crc32 as zlibCrc32, deflateRawSync } from 'node:zlib'

export interface ZipEntry {
  name: string
  /** The entry's data as stored: raw deflate (method 8) or the bytes themselves (method 0). */
  data: Uint8Array
  /** @defaultValue 8 */
  method?: 0 | 8
  /** The uncompressed size the archive declares (a bomb may lie). */
  size: number
  /** @defaultValue 0 (readers that do not check it never notice) */
  crc?: number
}

/** An entry deflated honestly, with its real size and checksum. */
export function deflatedEntry(name: string, content: string | Uint8Array): ZipEntry {
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content
  return { name, data: deflateRawSync(bytes), size: bytes.length, crc: crc32(bytes) }
}

function crc32(bytes: Uint8Array): number {
  // zlib.crc32 exists from Node 20.15; a plain table otherwise.
  if (typeof zlibCrc32 === 'function') return zlibCrc32(bytes)
  let crc = -1
  for (const byte of bytes) {
    crc ^= byte
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1))
  }
  return (crc ^ -1) >>> 0
}

/** The archive: local headers and data, the central directory, its end record. */
export function zipArchive(entries: readonly ZipEntry[]): Uint8Array {
  const parts: Uint8Array[] = []
  const central: Uint8Array[] = []
  let offset = 0
  for (const entry of entries) {
    const name = new TextEncoder().encode(entry.name)
    const method = entry.method ?? 8
    const local = new DataView(new ArrayBuffer(30))
    local.setUint32(0, 0x04034b50, true)
    local.setUint16(4, 20, true)
    local.setUint16(8, method, true)
    local.setUint32(14, entry.crc ?? 0, true)
    local.setUint32(18, entry.data.length, true)
    local.setUint32(22, entry.size, true)
    local.setUint16(26, name.length, true)
    parts.push(new Uint8Array(local.buffer), name, entry.data)
    const header = new DataView(new ArrayBuffer(46))
    header.setUint32(0, 0x02014b50, true)
    header.setUint16(4, 20, true)
    header.setUint16(6, 20, true)
    header.setUint16(10, method, true)
    header.setUint32(16, entry.crc ?? 0, true)
    header.setUint32(20, entry.data.length, true)
    header.setUint32(24, entry.size, true)
    header.setUint16(28, name.length, true)
    header.setUint32(42, offset, true)
    central.push(new Uint8Array(header.buffer), name)
    offset += 30 + name.length + entry.data.length
  }
  const centralSize = central.reduce((sum, part) => sum + part.length, 0)
  const end = new DataView(new ArrayBuffer(22))
  end.setUint32(0, 0x06054b50, true)
  end.setUint16(8, entries.length, true)
  end.setUint16(10, entries.length, true)
  end.setUint32(12, centralSize, true)
  end.setUint32(16, offset, true)
  return Buffer.concat([...parts, ...central, new Uint8Array(end.buffer)])
}

/** Raw deflate of `head`, then `unit` repeated `times`, then `tail`, at about 1/1000 of the inflated size. */
export async function repeatedDeflate(head: string, unit: string, times: number, tail: string): Promise<Uint8Array> {
  const piece = async (text: string, end: boolean) => {
    const deflate = createDeflateRaw({ level: 9 })
    const chunks: Buffer[] = []
    deflate.on('data', (chunk: Buffer) => chunks.push(chunk))
    const done = end
      ? new Promise<void>((resolve) => deflate.on('end', () => resolve()))
      : new Promise<void>((resolve) => deflate.write(text, () => deflate.flush(constants.Z_FULL_FLUSH, () => resolve())))
    if (end) deflate.end(text)
    await done
    return Buffer.concat(chunks)
  }
  // A full flush leaves no reference back, so the pieces concatenate into one stream.
  const repeated = await piece(unit, false)
  return Buffer.concat([await piece(head, false), ...Array.from({ length: times }, () => repeated), await piece(tail, true)])
}

/** A DOCX (the parts mammoth needs) whose document.xml is `xml`, deflated as given. */
export function docxArchive(documentXml: ZipEntry): Uint8Array {
  return zipArchive([
    deflatedEntry(
      '[Content_Types].xml',
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ),
    deflatedEntry(
      '_rels/.rels',
      '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    ),
    documentXml,
  ])
}

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main'

/** document.xml with one paragraph of `text`. */
export const documentXml = (text: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:body></w:document>`

/** A DOCX bomb: document.xml is one paragraph of `mib` MiB of the letter a, in about `mib` kB. */
export async function docxBomb(mib: number, { declaredSize }: { declaredSize?: number } = {}): Promise<Uint8Array> {
  const [head, tail] = documentXml('\0').split('\0') as [string, string]
  const data = await repeatedDeflate(head, 'a'.repeat(1024 * 1024), mib, tail)
  const size = head.length + mib * 1024 * 1024 + tail.length
  return docxArchive({ name: 'word/document.xml', data, size: declaredSize ?? size })
}
