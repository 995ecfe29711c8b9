/**
 * HTML to a DOM with linkedom, loaded on first use so importing the adapters stays light.
 * For small, trusted-shape documents (a search engine's result page, local files); web pages
 * go through `readableText`, which parses them in a worker thread.
 */
import { parseDocument } from './extract.js'

export { collapsedText } from './extract.js'

type Linkedom = typeof import('linkedom')
let linkedom: Promise<Linkedom> | undefined

export async function parseHtml(html: string): Promise<Document> {
  linkedom ??= import('linkedom')
  const { parseHTML } = await linkedom
  return parseDocument(parseHTML, html)
}
