/** What every kind of source becomes: items, each loading its content before it is read. */
import type { FetchProvider } from '../core/contracts/providers.js'
import type { ReadDocument } from '../documents/document-chunks.js'

/** What an item's content hash covers, and how to read it into a document once that hash is new. */
export interface LoadedItem {
  content: Uint8Array | string
  /** Throws a `SkippedItem` when the document cannot be read (an encrypted PDF, say): it is skipped, saying why. */
  read(): Promise<ReadDocument>
}

/** One document to index. */
export interface SourceItem {
  /** The document's identity and URL, without a fragment. */
  url: string
  load(signal?: AbortSignal): Promise<LoadedItem>
}

/** A source's items; for a folder, its URL prefix too: what is stored under it and not found was deleted. */
export interface ExpandedSource {
  items: SourceItem[]
  folder?: string
}

/** An item that cannot be indexed, and why (without its URL: the report names it): the index goes on without it. */
export class SkippedItem extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message)
    this.name = 'SkippedItem'
  }
}

export interface SourceSettings {
  extensions: readonly string[]
  maxFileBytes: number
  fetcher: () => Promise<FetchProvider>
}
