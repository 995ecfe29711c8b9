/**
 * Node-only: reads a folder of `.md`, `.txt`, `.html`, `.pdf` and `.docx` files into documents
 * with stable `file:` URLs (a PDF keeps where each page starts, for `#page=n` citations).
 * `localCorpus({ dir })` reads its folder with it once src/node/runtime.ts installed it; the
 * knowledge base's file sources read files with its parts.
 */
import { constants as fsConstants } from 'node:fs'
import { open, readdir } from 'node:fs/promises'
import { basename, extname, join, relative, resolve, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import pLimit from 'p-limit'
import { ProviderError, isAbortError } from '../core/contracts/laconic-error.js'
import type { DocumentWarningCode } from '../core/contracts/providers.js'
import { loadParser } from '../adapters/fetch/dom.js'
import { documentText, taglessText, type ExtractedPage } from '../adapters/fetch/extract.js'
import { offThread } from '../adapters/fetch/off-thread.js'
import { documentReason, readDocument } from '../adapters/fetch/read-document.js'
import { DEFAULT_EXTENSIONS, type LoadDirectory, type LocalDocument, type SkippedFileReport } from '../documents/local-document.js'

/** Time one HTML file may take to read (an ordinary one takes milliseconds). */
export const DOCUMENT_PARSE_TIMEOUT_MS = 5_000

/** An HTML file larger than this (in characters) is not parsed: as large as a page `httpFetch` reads. */
export const MAX_PARSED_HTML_CHARS = 2_000_000

/** Time one PDF or DOCX file may take to read, on a worker thread. */
export const DOCUMENT_READ_TIMEOUT_MS = 20_000

/** Pages and characters read from one PDF or DOCX file, as `httpFetch` reads a fetched one. */
const DOCUMENT_LIMITS = { maxPages: 300, maxChars: 1_000_000 }

/** Every matching file under `dir`, in a stable order; dot-folders and node_modules skipped. */
export async function listFiles(dir: string, extensions: ReadonlySet<string>): Promise<string[]> {
  const found: string[] = []
  const pending = [dir]
  while (pending.length > 0) {
    const current = pending.pop() as string
    for (const entry of await readdir(current, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue
      const path = join(current, entry.name)
      if (entry.isDirectory()) pending.push(path)
      else if (entry.isFile() && extensions.has(extname(entry.name).toLowerCase())) found.push(path)
    }
  }
  return found.sort()
}

/** Markdown front matter: dropped from the text, its `title:` kept. */
function splitFrontMatter(text: string): { title?: string; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text)
  if (!match) return { body: text }
  const title = /^title:\s*["']?(.*?)["']?\s*$/m.exec(match[1] ?? '')?.[1]
  return { body: text.slice(match[0].length), ...(title ? { title } : {}) }
}

/**
 * An HTML file's title and text, parsed on a worker thread under a time budget like a web
 * page (a folder may hold pages saved from anywhere): one that is too large to parse, not
 * done in time, or cannot be parsed, is indexed as its tag-stripped text (one linear pass
 * that yields to the event loop).
 */
async function htmlDocument(raw: string, timeoutMs: number): Promise<ExtractedPage> {
  if (raw.length > MAX_PARSED_HTML_CHARS) return { text: await taglessText(raw) }
  try {
    return (await offThread({ kind: 'document', html: raw, timeoutMs })) ?? documentText(raw, { parseHTML: await loadParser() })
  } catch (error) {
    if (isAbortError(error)) throw error
    return { text: await taglessText(raw) }
  }
}

/**
 * A file left out of a folder's documents, and why: its message says what went wrong without
 * naming the file (the report that lists it names it once).
 */
export class SkippedFile extends Error {
  constructor(
    message: string,
    readonly code: DocumentWarningCode,
  ) {
    super(message)
    this.name = 'SkippedFile'
  }
}

/** A file larger than this (in bytes) is skipped before it is read, as the knowledge base's `maxFileBytes`. */
export const DEFAULT_MAX_FILE_BYTES = 50_000_000

/**
 * A file's bytes, if it has at most `maxBytes` of them: a larger one is skipped before any is
 * read (a 2 GiB file cannot even be held in one buffer), and one gone or unreadable since the
 * folder was listed, or not a regular file, is skipped too.
 */
export async function readFileCapped(path: string, maxBytes: number): Promise<Uint8Array> {
  let handle: Awaited<ReturnType<typeof open>> | undefined
  try {
    // Non-blocking, so that a FIFO named like a document does not wait for a writer forever.
    handle = await open(path, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0))
    const info = await handle.stat()
    if (!info.isFile()) throw new SkippedFile('it is not a regular file', 'document-unreadable')
    const { size } = info
    if (size > maxBytes) throw new SkippedFile(`it is ${size} bytes, more than the ${maxBytes} read from one file (maxFileBytes)`, 'document-too-large')
    // Read as large as it was when looked at: one that grows meanwhile is cut there.
    const bytes = new Uint8Array(size)
    let at = 0
    while (at < size) {
      const { bytesRead } = await handle.read(bytes, at, size - at, at)
      if (bytesRead === 0) break
      at += bytesRead
    }
    return at === size ? bytes : bytes.subarray(0, at)
  } catch (error) {
    if (error instanceof SkippedFile) throw error
    throw new SkippedFile(`it could not be read (${error instanceof Error ? error.message : String(error)})`, 'document-unreadable')
  } finally {
    await handle?.close()
  }
}

/**
 * A PDF's or DOCX file's text, read on a worker thread like a fetched one. A file that cannot be
 * read (encrypted, broken, no text layer, a DOCX without the optional mammoth package) is a
 * `SkippedFile` whose code says why.
 */
async function binaryDocument(bytes: Uint8Array, url: string, kind: 'pdf' | 'docx'): Promise<FileDocument> {
  try {
    const page = await readDocument(url, kind, bytes, { ...DOCUMENT_LIMITS, timeoutMs: DOCUMENT_READ_TIMEOUT_MS, provider: 'local' })
    return { url, title: page.title ?? '', text: page.text, kind, ...(page.pageStarts ? { pageStarts: page.pageStarts } : {}) }
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error
    throw new SkippedFile(documentReason(error), error.code as DocumentWarningCode)
  }
}

/** A file read as a document: its `file:` URL, title (empty when it has none) and text. */
export type FileDocument = Required<Pick<LocalDocument, 'url' | 'title' | 'text'>> & Pick<LocalDocument, 'kind' | 'pageStarts'>

/**
 * One file's document, from its bytes: markdown and text as they are (front matter dropped, its
 * `title:` kept), HTML parsed on a worker thread, PDF and DOCX read there too. A PDF or DOCX file
 * that cannot be read throws a `SkippedFile` saying why.
 */
export async function fileDocument(
  path: string,
  bytes: Uint8Array,
  { timeoutMs = DOCUMENT_PARSE_TIMEOUT_MS }: { timeoutMs?: number } = {},
): Promise<FileDocument> {
  const url = pathToFileURL(path).href
  const fallbackTitle = basename(path, extname(path))
  const binary = /^\.(pdf|docx)$/i.exec(extname(path))?.[1]?.toLowerCase() as 'pdf' | 'docx' | undefined
  if (binary) {
    const document = await binaryDocument(bytes, url, binary)
    return { ...document, title: document.title || fallbackTitle }
  }
  const raw = new TextDecoder().decode(bytes)
  if (/^\.html?$/i.test(extname(path))) {
    const { title, text } = await htmlDocument(raw, timeoutMs)
    return { url, title: title || fallbackTitle, text }
  }
  const { title, body } = splitFrontMatter(raw)
  const heading = /^#\s+(.+?)\s*#*\s*$/m.exec(body)?.[1]
  return { url, title: title ?? heading ?? fallbackTitle, text: body }
}

/** Files read at once: their bytes are held until parsed, and a folder may hold thousands. */
const READ_CONCURRENCY = 8

export const loadDirectory: LoadDirectory = async (
  dir,
  extensions = DEFAULT_EXTENSIONS,
  { timeoutMs = DOCUMENT_PARSE_TIMEOUT_MS, maxFileBytes = DEFAULT_MAX_FILE_BYTES } = {},
) => {
  const root = resolve(dir)
  const files = await listFiles(root, new Set(extensions.map((ext) => (ext.startsWith('.') ? ext : `.${ext}`).toLowerCase())))
  const limit = pLimit(READ_CONCURRENCY)
  const skipped: SkippedFileReport[] = []
  // One file that cannot be read is reported and left out; the others are still read.
  const read = await Promise.all(
    files.map((path) =>
      limit(async (): Promise<LocalDocument | undefined> => {
        const id = relative(root, path).split(sep).join('/')
        try {
          return { ...(await fileDocument(path, await readFileCapped(path, maxFileBytes), { timeoutMs })), id }
        } catch (error) {
          if (!(error instanceof SkippedFile)) throw error
          skipped.push({ url: pathToFileURL(path).href, id, code: error.code, message: error.message })
          return undefined
        }
      }),
    ),
  )
  skipped.sort((a, b) => a.id.localeCompare(b.id))
  return { documents: read.filter((document) => document !== undefined), skipped }
}
