/**
 * Node-only: a folder or a file as items to index, installed for the knowledge base by
 * src/node/runtime.ts (other runtimes index texts and URLs). A file larger than `maxFileBytes`
 * is skipped before it is read; its content hash covers its bytes, so an unchanged file is
 * never parsed again.
 */
import { stat } from 'node:fs/promises'
import { extname, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { LaconicError } from '../core/contracts/laconic-error.js'
import { SkippedFile, fileDocument, listFiles, readFileCapped } from './load-dir.js'
import { type ExpandedSource, SkippedItem, type SourceItem, type SourceSettings } from '../kb/source-item.js'

function fileItem(path: string, maxFileBytes: number): SourceItem {
  const url = pathToFileURL(path).href
  // A file the folder's reader leaves out is skipped here too, with its code and reason.
  const skipped = (error: unknown): never => {
    if (error instanceof SkippedFile) throw new SkippedItem(error.message, error.code)
    throw error
  }
  return {
    url,
    async load() {
      const bytes = await readFileCapped(path, maxFileBytes).catch(skipped)
      return {
        content: bytes,
        read: async () => {
          const document = await fileDocument(path, bytes).catch(skipped)
          return { url, title: document.title, text: document.text, pageStarts: document.pageStarts }
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
