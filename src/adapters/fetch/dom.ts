/**
 * HTML to a DOM with linkedom, loaded on first use so importing the adapters stays light.
 * Untrusted HTML (web pages, result pages, local files) is parsed on a worker thread (see
 * `off-thread.ts`); this parses in place, where a runtime has no worker threads.
 */
import { parseDocument } from './extract.js'

export { collapsedText } from './extract.js'

type Linkedom = typeof import('linkedom')
let linkedom: Promise<Linkedom> | undefined

/** linkedom's `parseHTML`, loaded on first use. */
export async function loadParser(): Promise<Linkedom['parseHTML']> {
  linkedom ??= import('linkedom')
  return (await linkedom).parseHTML
}

export async function parseHtml(html: string): Promise<Document> {
  return parseDocument(await loadParser(), html)
}
