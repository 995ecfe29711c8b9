/**
 * One decompression bomb read through `readDocument` at the default budget, in a process of its
 * own (`document-bombs.ts` starts it), so the process's peak resident memory (VmHWM, Linux) is
 * this one read's. Prints one JSON line: the outcome, the seconds it took, the peak before and
 * during the read, and the resident memory once the read has ended.
 */
import { readFileSync } from 'node:fs'
import { readDocument } from '../src/adapters/fetch/read-document.js'
import { buildPdf, stream, zeroBomb } from '../test/support/make-pdf.js'
import { docxBomb } from '../test/support/make-zip.js'

/** Resident memory now and at its peak, in MiB, from /proc (Linux). */
function memory(): { rssMb: number; peakMb: number } {
  const status = readFileSync('/proc/self/status', 'utf8')
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN)
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) }
}

const font = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'
const kind = process.argv[2] as 'pdf' | 'docx'
const bytes =
  kind === 'pdf'
    ? // 4 GiB of zeros in one content stream, about 4 MB deflated.
      buildPdf([
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
        stream(await zeroBomb(256), '/Filter /FlateDecode '),
        font,
      ])
    : // word/document.xml of 1.5 GiB, about 1.6 MB deflated, its size declared honestly.
      await docxBomb(1536)
const before = memory()
const cpu = process.cpuUsage()
const started = performance.now()
// BOMBS=n reads n copies at once (the pool reads one per thread, one thread per core up to 4).
const copies = Number(process.env.BOMBS ?? 1)
const read = () =>
  readDocument(`bomb.${kind}`, kind, bytes, { timeoutMs: Number(process.env.BOMB_TIMEOUT_MS ?? 20_000), maxPages: 300, maxChars: 1_000_000 }).then(
    (page) => `read (${page.text.length} characters)`,
    (error: { code?: string; message?: string }) => `${error.code}: ${error.message?.slice(0, 160)}`,
  )
const outcome = [...new Set(await Promise.all(Array.from({ length: copies }, read)))].join(' | ')
const seconds = (performance.now() - started) / 1000
// Every thread's CPU time, the worker's included: what the read cost whatever the machine's load.
const { user, system } = process.cpuUsage(cpu)
// What stays resident once the thread is gone.
await new Promise((resolve) => setTimeout(resolve, 1_000))
const after = memory()
console.log(
  JSON.stringify({
    kind,
    copies,
    bytes: bytes.length,
    outcome,
    seconds,
    cpuSeconds: (user + system) / 1e6,
    peakBeforeMb: before.peakMb,
    peakMb: after.peakMb,
    rssAfterMb: after.rssMb,
  }),
)
process.exit(0)
