/**
 * Node-only: reads a folder of `.md`, `.txt` and `.html` files into documents with
 * stable `file:` URLs. Loaded by `localCorpus({ dir })` only, so `documents` users in
 * other runtimes never import `node:fs`.
 */
import { readFile, readdir } from 'node:fs/promises'
import { basename, extname, join, relative, resolve, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import { isAbortError } from '../../../core/index.js'
import { loadParser } from '../../fetch/dom.js'
import { documentText, taglessText, type ExtractedPage } from '../../fetch/extract.js'
import { offThread } from '../../fetch/off-thread.js'
import type { LocalDocument } from './local-corpus.js'

/** Time one HTML file may take to read (an ordinary one takes milliseconds). */
export const DOCUMENT_PARSE_TIMEOUT_MS = 5_000

/** An HTML file larger than this (in characters) is not parsed: as large as a page `httpFetch` reads. */
export const MAX_PARSED_HTML_CHARS = 2_000_000

export const DEFAULT_EXTENSIONS = ['.md', '.markdown', '.txt', '.html', '.htm']

/** Every matching file under `dir`, in a stable order; dot-folders and node_modules skipped. */
async function listFiles(dir: string, extensions: ReadonlySet<string>): Promise<string[]> {
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

async function toDocument(path: string, root: string, timeoutMs: number): Promise<LocalDocument> {
  const raw = await readFile(path, 'utf8')
  const id = relative(root, path).split(sep).join('/')
  const url = pathToFileURL(path).href
  const fallbackTitle = basename(path, extname(path))
  if (/^\.html?$/i.test(extname(path))) {
    const { title, text } = await htmlDocument(raw, timeoutMs)
    return { id, url, title: title || fallbackTitle, text }
  }
  const { title, body } = splitFrontMatter(raw)
  const heading = /^#\s+(.+?)\s*#*\s*$/m.exec(body)?.[1]
  return { id, url, title: title ?? heading ?? fallbackTitle, text: body }
}

export async function loadDirectory(
  dir: string,
  extensions: readonly string[] = DEFAULT_EXTENSIONS,
  { timeoutMs = DOCUMENT_PARSE_TIMEOUT_MS }: { timeoutMs?: number } = {},
): Promise<LocalDocument[]> {
  const root = resolve(dir)
  const files = await listFiles(root, new Set(extensions.map((ext) => (ext.startsWith('.') ? ext : `.${ext}`).toLowerCase())))
  return Promise.all(files.map((file) => toDocument(file, root, timeoutMs)))
}
