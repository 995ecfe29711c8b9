/**
 * Decompression bombs read at the default budget (issue 35): a 4 GiB FlateDecode PDF stream in
 * about 4 MB, and a DOCX whose document.xml inflates to 1.5 GiB in about 1.6 MB. Each is read in
 * a process of its own (`document-bomb-child.ts`), so its peak resident memory (VmHWM) is that
 * read's: whole process, main thread and extraction workers together; then four PDF bombs at once
 * (the pool reads one per thread). Target: the peak stays within the bound docs/security.md
 * states per thread. Linux only (/proc).
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { POOL_SIZE } from '../src/node/extract-pool.js'
import { round } from './stats.js'

const exec = promisify(execFile)

/** The bound docs/security.md states per extraction thread: its heap (512 MB), its buffers (256 MiB live, one stream's 64 MiB), and the process around them. */
const MAX_PEAK_MB = 1024

interface BombRead {
  kind: string
  copies: number
  bytes: number
  outcome: string
  seconds: number
  cpuSeconds: number
  peakBeforeMb: number
  peakMb: number
  rssAfterMb: number
}

async function readBomb(kind: 'pdf' | 'docx', copies = 1): Promise<BombRead> {
  const child = fileURLToPath(new URL('./document-bomb-child.ts', import.meta.url))
  const register = fileURLToPath(new URL('./register.mjs', import.meta.url))
  const env = { ...process.env, BOMBS: String(copies) }
  const { stdout } = await exec(process.execPath, ['--import', register, child, kind], { maxBuffer: 1 << 20, env })
  return JSON.parse(stdout.trim().split('\n').pop() as string) as BombRead
}

export async function run(): Promise<{ name: string; rows: Record<string, unknown>[]; details: unknown }> {
  const reads = [await readBomb('pdf'), await readBomb('pdf', 4), await readBomb('docx')]
  return {
    name: 'document-bombs',
    rows: reads.map((read) => ({
      workload: `${read.copies > 1 ? `${read.copies} at once: ` : ''}${read.kind === 'pdf' ? `PDF, one Flate stream of 4 GiB (${read.bytes} bytes)` : `DOCX, document.xml of 1.5 GiB (${read.bytes} bytes)`}`,
      outcome: read.outcome.slice(0, 60),
      seconds: round(read.seconds, 1),
      cpuSeconds: round(read.cpuSeconds, 1),
      peakMb: read.peakMb,
      rssAfterMb: read.rssAfterMb,
      // The bound is per extraction thread: reads at once share the pool's threads.
      target: `peak RSS ≤ ${MAX_PEAK_MB * Math.min(read.copies, POOL_SIZE)} MB`,
      met: read.peakMb <= MAX_PEAK_MB * Math.min(read.copies, POOL_SIZE),
    })),
    details: reads,
  }
}
