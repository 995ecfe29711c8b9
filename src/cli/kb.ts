/**
 * The knowledge base on the command line: `laconic index SOURCE... --kb PATH` fills it,
 * `laconic kb list|remove --kb PATH` looks after it, and `--kb PATH` on a question searches it.
 * Its store is LanceDB in the folder PATH; its embedder comes from the embed flags or the folder's
 * record of the one it was indexed with.
 */
import { stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { type KnowledgeBase, knowledgeBase } from '../kb/index.js'
import type { IndexProgress, IndexReport } from '../kb/indexer.js'
import type { StoredDocument } from '../kb/vector-store.js'
import { FORMATS, type Format } from './args.js'
import { recordEmbedder, resolveEmbedder } from './embedder.js'
import { type EmbedFlags, embedFlags, KB_FLAGS } from './kb-flags.js'
import { didYouMean } from './did-you-mean.js'
import { EXIT } from './exit-codes.js'
import { count } from './plural.js'
import { loadOptional } from './optional-package.js'
import type { CliIO } from './io.js'
import type { Env } from './llm.js'
import type { Output } from './render/index.js'
import { UsageError } from './usage-error.js'

export const KB_COMMANDS = ['index', 'kb'] as const

export function isKbCommand(argv: readonly string[]): boolean {
  return (KB_COMMANDS as readonly string[]).includes(argv[0] ?? '')
}

/** The knowledge base at `path`: its LanceDB store and its embedder. */
export async function openKnowledgeBase(path: string, flags: EmbedFlags, env: Env): Promise<{ kb: KnowledgeBase; remember: () => Promise<void> }> {
  const folder = resolve(path)
  // LanceDB's native module loads only when a knowledge base is used.
  const { lanceVectorStore } = await loadOptional('a knowledge base', 'lancedb', () => import('../lancedb/index.js'))
  const { embed, record } = await resolveEmbedder(folder, flags, env)
  const kb = knowledgeBase({ store: lanceVectorStore({ path: folder }), embed })
  return { kb, remember: () => recordEmbedder(folder, record) }
}

/** An existing knowledge base, for a question or `kb list|remove`: a missing folder is a usage error, not an empty answer. */
export async function existingKnowledgeBase(path: string, flags: EmbedFlags, env: Env): Promise<KnowledgeBase> {
  const info = await stat(path).catch(() => undefined)
  if (!info?.isDirectory()) throw new UsageError(`--kb ${path}: no knowledge base there (fill one with laconic index SOURCE... --kb ${path})`)
  return (await openKnowledgeBase(path, flags, env)).kb
}

/** `12/40 files · 230 chunks · 85 embeddings/s`. */
export function indexProgressLine(progress: IndexProgress, elapsedMs: number): string {
  const embedded = progress.chunks
  const rate = elapsedMs > 0 ? (embedded * 1000) / elapsedMs : 0
  return `indexing: ${progress.documents}/${count(progress.total, 'file')} · ${progress.unchanged} unchanged · ${count(embedded, 'chunk')} · ${rate.toFixed(rate < 10 ? 1 : 0)} embeddings/s`
}

export function indexSummary(report: IndexReport, elapsedMs: number): string {
  const parts = [`${report.added} added`, `${report.updated} updated`, `${report.unchanged} unchanged`, `${report.removed} removed`]
  if (report.skipped.length > 0) parts.push(`${report.skipped.length} skipped`)
  return `laconic: indexed ${parts.join(', ')}; ${count(report.chunks, 'chunk')} embedded in ${(elapsedMs / 1000).toFixed(1)} s\n`
}

/** Redraws one status line on a terminal at most every 100 ms; elsewhere a line every 5 s. */
function progressPrinter(stderr: Output, now: () => number): { update(line: string): void; done(): void } {
  const tty = stderr.isTTY === true
  let last = Number.NEGATIVE_INFINITY
  let drawn = false
  return {
    update(line) {
      const at = now()
      if (at - last < (tty ? 100 : 5_000)) return
      last = at
      stderr.write(tty ? `\r\u001b[2K${line.slice(0, Math.max(10, (stderr.columns || 80) - 1))}` : `laconic: ${line}\n`)
      drawn = tty
    },
    done() {
      if (drawn) stderr.write('\r\u001b[2K')
    },
  }
}

/** The command's flags; an unknown one is a usage error naming it. */
function parseKbArgs(command: string, argv: readonly string[]) {
  const options = { ...KB_FLAGS, format: { type: 'string', short: 'f' } } as const
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true })
  } catch (error) {
    const flag = /'([^']+)'/.exec(error instanceof Error ? error.message : '')?.[1]
    const meant = flag ? didYouMean(flag.replace(/^-+/, '').split('=')[0] ?? '', Object.keys(options), '--') : ''
    throw new UsageError(`laconic ${command} takes --kb and the --embed-* flags${flag ? `, not ${flag}${meant}` : ''}; see laconic --help`)
  }
}

/**
 * A document as `kb list --format json|ndjson` prints it: these fields, in this order, whatever
 * the store keeps besides (scripts read them by name).
 */
function listedDocument(document: StoredDocument): { id: string; url: string; title: string; chunks: number; indexedAt: string; hash: string } {
  return { id: document.id, url: document.url, title: document.title, chunks: document.chunks, indexedAt: document.indexedAt, hash: document.hash }
}

/** The documents on stdout: a line each (URL, title, chunks, when indexed; tab separated), one JSON array, or a JSON object a line. */
function printDocuments(documents: readonly StoredDocument[], format: Format, stdout: Output): void {
  const listed = documents.map(listedDocument)
  if (format === 'json') stdout.write(`${JSON.stringify(listed, null, 2)}\n`)
  else if (format === 'ndjson') for (const document of listed) stdout.write(`${JSON.stringify(document)}\n`)
  else for (const document of listed) stdout.write(`${document.url}\t${document.title}\t${count(document.chunks, 'chunk')}\t${document.indexedAt}\n`)
}

/** `--format` of `kb list`: the question's formats; the other commands print no list, and refuse it. */
function listFormat(command: string, value: string | undefined): Format {
  if (value === undefined) return 'pretty'
  if (command !== 'kb list') throw new UsageError(`laconic ${command} takes no --format: only laconic kb list does`)
  if (!(FORMATS as readonly string[]).includes(value)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}; got "${value}"`)
  return value as Format
}

async function indexCommand(argv: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseKbArgs('index', argv)
  listFormat('index', values.format)
  if (!values.kb) throw new UsageError('laconic index needs --kb PATH (the folder the knowledge base lives in)')
  if (positionals.length === 0) throw new UsageError('laconic index needs what to index: folders, files or URLs, e.g. laconic index ./docs --kb ./kb')
  const { kb, remember } = await openKnowledgeBase(values.kb, embedFlags(values), io.env)
  const started = io.now()
  const printer = progressPrinter(io.stderr, io.now)
  try {
    const report = await kb.index(positionals, {
      signal: io.interrupt,
      onProgress: (progress) => printer.update(indexProgressLine(progress, io.now() - started)),
    })
    printer.done()
    await remember()
    for (const skipped of report.skipped) io.stderr.write(`laconic: skipped ${skipped.url}: ${skipped.message}\n`)
    io.stderr.write(indexSummary(report, io.now() - started))
    return EXIT.answered
  } catch (error) {
    printer.done()
    if (io.interrupt.aborted) {
      io.stderr.write('laconic: indexing interrupted; what was indexed stays, and indexing again goes on from there\n')
      return EXIT.interrupted
    }
    throw error
  } finally {
    await kb.close()
  }
}

/** `kb remove` takes an id (a URL), a file, or a folder (everything indexed under it). */
function removalTargets(target: string, ids: readonly string[]): string[] {
  if (ids.includes(target)) return [target]
  const url = /^[a-z][\w+.-]*:/i.test(target) ? target : pathToFileURL(resolve(target)).href
  const folder = `${url.replace(/\/$/, '')}/`
  return ids.filter((id) => id === url || id.startsWith(folder))
}

async function kbCommand(argv: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseKbArgs('kb', argv)
  const [action, ...targets] = positionals
  if (action !== 'list' && action !== 'remove')
    throw new UsageError('laconic kb takes list or remove: laconic kb list --kb PATH, laconic kb remove ID|PATH --kb PATH')
  if (!values.kb) throw new UsageError(`laconic kb ${action} needs --kb PATH`)
  if (action === 'list' && targets.length > 0) throw new UsageError('laconic kb list takes no other argument')
  if (action === 'remove' && targets.length === 0) throw new UsageError('laconic kb remove needs what to remove: a document URL, a file or a folder')
  const format = listFormat(`kb ${action}`, values.format)
  const kb = await existingKnowledgeBase(values.kb, embedFlags(values), io.env)
  try {
    const documents = await kb.documents()
    if (action === 'list') {
      printDocuments(
        documents.sort((a, b) => a.url.localeCompare(b.url)),
        format,
        io.stdout,
      )
      io.stderr.write(`laconic: ${count(documents.length, 'document')}\n`)
      return EXIT.answered
    }
    const ids = documents.map((document) => document.id)
    const doomed = [...new Set(targets.flatMap((target) => removalTargets(target, ids)))]
    for (const id of doomed) await kb.remove(id)
    io.stderr.write(`laconic: removed ${count(doomed.length, 'document')}\n`)
    return doomed.length > 0 ? EXIT.answered : EXIT.error
  } finally {
    await kb.close()
  }
}

export function runKbCommand(argv: readonly string[], io: CliIO): Promise<number> {
  return argv[0] === 'index' ? indexCommand(argv.slice(1), io) : kbCommand(argv.slice(1), io)
}
