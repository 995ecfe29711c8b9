/**
 * What can be indexed, and how each kind is read: a folder or a file (Node only: its reader installed by src/node/runtime.ts),
 * a web page or document by URL (through a `FetchProvider`), or a text given in memory. Each
 * source becomes items; an item first loads what its content hash covers (a file's bytes, a
 * page's text), and is only parsed when that hash is new.
 */
import { LaconicError, ProviderError, isAbortError } from '../core/contracts/laconic-error.js'
import type { FetchProvider } from '../core/contracts/providers.js'
import { documentReason } from '../adapters/fetch/read-document.js'
import { NODE_SETUP_HINT, runsOnNode } from '../core/util/node-setup.js'
import { type ExpandedSource, SkippedItem, type SourceItem, type SourceSettings } from './source-item.js'

/**
 * A path to a folder or a file, an `http(s):` or `file:` URL, or a document given as text (its
 * `url` is its identity and what results cite).
 */
export type KnowledgeSource = string | { readonly url: string; readonly text: string; readonly title?: string }

const isWebUrl = (source: string) => /^https?:\/\//i.test(source)

function titleOf(text: string, fallback: string): string {
  return /^#\s+(.+?)\s*#*\s*$/m.exec(text)?.[1] ?? fallback
}

function pageItem(url: string, settings: SourceSettings): SourceItem {
  return {
    url,
    async load(signal) {
      let page: Awaited<ReturnType<FetchProvider['fetch']>>
      try {
        page = await (await settings.fetcher()).fetch(url, signal ? { signal } : {})
      } catch (error) {
        if (isAbortError(error) || !(error instanceof ProviderError)) throw error
        // The report names the URL itself.
        throw new SkippedItem(documentReason(error), error.code)
      }
      const starts = page.pageStarts ? `\0${page.pageStarts.join(',')}` : ''
      return {
        content: `${page.title ?? ''}\0${page.text}${starts}`,
        read: async () => ({ url, title: page.title?.trim() || titleOf(page.text, url), text: page.text, pageStarts: page.pageStarts }),
      }
    },
  }
}

function textItem(source: { url: string; text: string; title?: string }): SourceItem {
  const url = source.url.split('#', 1)[0] as string
  return {
    url,
    load: async () => ({
      content: `${source.title ?? ''}\0${source.text}`,
      read: async () => ({ url, title: source.title?.trim() || titleOf(source.text, url), text: source.text }),
    }),
  }
}

/** Reads a path (a folder or a file) as items to index: Node's file system. */
export type FileSource = (source: string, settings: SourceSettings) => Promise<ExpandedSource>

let fileSource: FileSource | undefined

/** Installs the file reader paths are indexed with (src/node/runtime.ts does, on Node). */
export function installFileSource(read: FileSource): void {
  fileSource = read
}

export async function expandSource(source: KnowledgeSource, settings: SourceSettings): Promise<ExpandedSource> {
  if (typeof source === 'object' && source !== null && typeof source.url === 'string' && typeof source.text === 'string') {
    return { items: [textItem(source)] }
  }
  if (typeof source !== 'string' || !source.trim()) {
    throw new LaconicError('knowledgeBase.index: a source is a path, a URL, or { url, text }', {
      code: 'config',
      hint: "e.g. kb.index(['./docs', 'https://example.com/guide', { url: 'note:1', text: '...' }])",
    })
  }
  if (isWebUrl(source)) return { items: [pageItem(source.split('#', 1)[0] as string, settings)] }
  if (!fileSource) {
    throw new LaconicError(`knowledgeBase.index: reading files (${source}) needs Node, whose file reader is not installed`, {
      code: 'config',
      hint: runsOnNode() ? NODE_SETUP_HINT : 'index URLs or `{ url, text }` sources in this runtime',
    })
  }
  return fileSource(source, settings)
}
