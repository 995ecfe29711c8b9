/**
 * A ZIP archive's (a DOCX file's) sizes, checked before anything else inflates it: a DOCX is a
 * ZIP, and a few megabytes of one can inflate to gigabytes that mammoth's ZIP reader (JSZip)
 * would hold in memory whole. The central directory declares each part's inflated size; the
 * sum must stay under a cap, and each part is inflated here once, with zlib stopping at its
 * declared size, so a part that inflates to more than it declares is caught too. What JSZip
 * then inflates is what was checked: it reads the same central directory, sizes and offsets.
 *
 * Runs on the extraction worker thread (zlib is Node's), never on the main thread.
 */
import { inflateRawSync } from 'node:zlib'

/** Why an archive is refused; undefined when it may be inflated. */
export type ZipRefusal = string | undefined

const END_OF_CENTRAL_DIRECTORY = 0x06054b50
const CENTRAL_HEADER = 0x02014b50
const LOCAL_HEADER = 0x04034b50
/** The field value that says "in the ZIP64 record": no DOCX within the caps needs it. */
const ZIP64 = 0xffffffff

interface Part {
  name: string
  method: number
  compressedSize: number
  size: number
  localHeader: number
}

/** The end record: searched for from the end, past a comment of up to 65,535 bytes. */
function endRecord(view: DataView): number {
  for (let at = view.byteLength - 22; at >= Math.max(0, view.byteLength - 22 - 0xffff); at--) {
    if (view.getUint32(at, true) === END_OF_CENTRAL_DIRECTORY) return at
  }
  return -1
}

function parts(bytes: Uint8Array): Part[] | string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const end = endRecord(view)
  if (end === -1) return 'it is not a ZIP archive (no central directory)'
  const count = view.getUint16(end + 10, true)
  const directory = view.getUint32(end + 16, true)
  if (count === 0xffff || directory === ZIP64) return 'it is a ZIP64 archive, larger than a document is read'
  const found: Part[] = []
  let at = directory
  for (let index = 0; index < count; index++) {
    if (at + 46 > end || view.getUint32(at, true) !== CENTRAL_HEADER) return 'its central directory is broken'
    const nameLength = view.getUint16(at + 28, true)
    const part: Part = {
      name: new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength)),
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      localHeader: view.getUint32(at + 42, true),
    }
    if (part.compressedSize === ZIP64 || part.size === ZIP64 || part.localHeader === ZIP64) return 'it is a ZIP64 archive, larger than a document is read'
    found.push(part)
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true)
  }
  return found
}

/** A part's stored bytes, found through its local header as JSZip finds them. */
function storedBytes(bytes: Uint8Array, part: Part): Uint8Array | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const header = part.localHeader
  if (header + 30 > bytes.length || view.getUint32(header, true) !== LOCAL_HEADER) return undefined
  const start = header + 30 + view.getUint16(header + 26, true) + view.getUint16(header + 28, true)
  return start + part.compressedSize <= bytes.length ? bytes.subarray(start, start + part.compressedSize) : undefined
}

const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`

/**
 * Why the archive must not be inflated (its parts declare more than `maxBytes` in all, or one
 * inflates to more than it declares), or undefined. At most one part's declared size is held
 * at a time while checking. A part that is broken otherwise is left to the reader to report.
 */
export function zipRefusal(bytes: Uint8Array, maxBytes: number): ZipRefusal {
  const found = parts(bytes)
  if (typeof found === 'string') return found
  const declared = found.reduce((sum, part) => sum + part.size, 0)
  if (declared > maxBytes) return `its parts would inflate to ${mib(declared)}, more than the ${mib(maxBytes)} read from one document (a zip bomb?)`
  for (const part of found) {
    const stored = storedBytes(bytes, part)
    if (!stored) return `its part ${part.name.slice(0, 100)} lies outside the file`
    if (part.method === 0 && stored.length > part.size) return `its part ${part.name.slice(0, 100)} is larger than it declares`
    if (part.method !== 8) continue
    const lie = `its part ${part.name.slice(0, 100)} inflates to more than the ${part.size} bytes it declares (a zip bomb?)`
    try {
      // zlib stops one byte past the declared size rather than inflating the rest.
      if (inflateRawSync(stored, { maxOutputLength: part.size + 1 }).length > part.size) return lie
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') return lie
      // Broken data: the reader says so in its own words.
    }
  }
  return undefined
}
