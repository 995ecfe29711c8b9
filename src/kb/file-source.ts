/**
 * Node-only: a folder or a file as items to index. Loaded by `expandSource` only, so the
 * knowledge base loads in runtimes without `node:fs` (and indexes texts and URLs there).
 * A file larger than `maxFileBytes` is skipped before it is read; its content hash covers its
 * bytes, so an unchanged file is never parsed again.
 */
import { readFile, stat } from 'node:fs/promises'
import { extname, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { LaconicError } from '../core/index.js'
import { fileDocument, listFiles } from '../adapters/search/local/load-dir.js'
import { type ExpandedSource, SkippedItem, type SourceItem, type SourceSettings } from './source-item.js'

function fileItem(path: string, maxFileBytes: number): SourceItem {
  const url = pathToFileURL(path).href
  return {
    url,
    async load() {
      let bytes: Uint8Array
      try {
        const { size } = await stat(path)
        if (size > maxFileBytes) {
          throw new SkippedItem(`${path} is ${size} bytes, more than maxFileBytes (${maxFileBytes})`, 'document-too-large')
        }
        bytes = new Uint8Array(await readFile(path))
      } catch (error) {
        if (error instanceof SkippedItem) throw error
        // Gone or unreadable since the folder was listed: the others are still indexed.
        throw new SkippedItem(`${path} could not be read (${error instanceof Error ? error.message : String(error)})`, 'document-unreadable')
      }
      return {
        content: bytes,
        read: async () => {
          const document = await fileDocument(path, bytes)
          return document && { url, title: document.title, text: document.text, pageStarts: document.pageStarts }
        },
      }
    },
  }
}

export async function fileSource(source: string, settings: SourceSettings): Promise<ExpandedSource> {
  const path = resolve(source.startsWith('file:') ? fileURLToPath(source) : source)
  const extensions = settings.extensions.map((ext) => (ext.startsWith('.') ? ext : `.${ext}`).toLowerCase())
  let found: Awaited<ReturnType<typeof stat>>
  try {
    found = await stat(path)
  } catch (cause) {
    throw new LaconicError(`knowledgeBase.index: cannot read ${path}`, { code: 'config', hint: 'check that the path exists and is readable', cause })
  }
  if (found.isDirectory()) {
    const files = await listFiles(path, new Set(extensions))
    return { items: files.map((file) => fileItem(file, settings.maxFileBytes)), folder: `${pathToFileURL(path).href.replace(/\/$/, '')}/` }
  }
  if (!extensions.includes(extname(path).toLowerCase())) {
    throw new LaconicError(`knowledgeBase.index: ${path} is not a file it reads`, {
      code: 'config',
      hint: `index files ending in ${extensions.join(', ')} (the \`extensions\` option)`,
    })
  }
  return { items: [fileItem(path, settings.maxFileBytes)] }
}
