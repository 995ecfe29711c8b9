/**
 * HTML to a DOM with linkedom, loaded on first use so importing the adapters stays light.
 * linkedom turns a fragment's first element into the document element (and then throws
 * on `document.body`), so anything that does not parse to an `<html>` root is parsed
 * again wrapped in a full document.
 */

type Linkedom = typeof import('linkedom')
let linkedom: Promise<Linkedom> | undefined

export async function parseHtml(html: string): Promise<Document> {
  linkedom ??= import('linkedom')
  const { parseHTML } = await linkedom
  if (/<html[\s>]/i.test(html)) {
    const { document } = parseHTML(html)
    if (document.documentElement?.tagName.toUpperCase() === 'HTML') return document as unknown as Document
  }
  return parseHTML(`<!doctype html><html><head></head><body>${html}</body></html>`).document as unknown as Document
}

/** The text of a node with runs of whitespace (including `&nbsp;`) collapsed to one space. */
export function collapsedText(node: Node | null | undefined): string {
  return (node?.textContent ?? '').replace(/\s+/g, ' ').trim()
}
