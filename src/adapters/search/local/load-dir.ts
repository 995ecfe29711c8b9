/**
 * Node-only: reads a folder of `.md`, `.txt` and `.html` files into documents with
 * stable `file:` URLs. Loaded by `localCorpus({ dir })` only, so `documents` users in
 * other runtimes never import `node:fs`.
 */
import { readFile, readdir } from 'node:fs/promises'
import { basename, extname, join, relative, resolve, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import { collapsedText, parseHtml } from '../../fetch/dom.js'
import { htmlToText } from '../../fetch/html-text.js'
import type { LocalDocument } from './local-corpus.js'

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

async function toDocument(path: string, root: string): Promise<LocalDocument> {
  const raw = await readFile(path, 'utf8')
  const id = relative(root, path).split(sep).join('/')
  const url = pathToFileURL(path).href
  const fallbackTitle = basename(path, extname(path))
  if (/^\.html?$/i.test(extname(path))) {
    try {
      const document = await parseHtml(raw)
      const title = collapsedText(document.querySelector('title')) || collapsedText(document.querySelector('h1')) || fallbackTitle
      return { id, url, title, text: htmlToText(document.body?.childNodes.length ? document.body : document.documentElement) }
    } catch {
      // One unparseable file should not sink the whole corpus: index its raw text.
      return { id, url, title: fallbackTitle, text: raw }
    }
  }
  const { title, body } = splitFrontMatter(raw)
  const heading = /^#\s+(.+?)\s*#*\s*$/m.exec(body)?.[1]
  return { id, url, title: title ?? heading ?? fallbackTitle, text: body }
}

export async function loadDirectory(dir: string, extensions: readonly string[] = DEFAULT_EXTENSIONS): Promise<LocalDocument[]> {
  const root = resolve(dir)
  const files = await listFiles(root, new Set(extensions.map((ext) => (ext.startsWith('.') ? ext : `.${ext}`).toLowerCase())))
  return Promise.all(files.map((file) => toDocument(file, root)))
}
