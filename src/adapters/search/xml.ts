/**
 * XML answers (arXiv's Atom feed, NCBI's E-utilities) read with linkedom's XML parser, never
 * with patterns over the text. The parser expands only XML's own and numeric entities and
 * never fetches a DTD, so a hostile body cannot reach the network or grow by entity expansion.
 * It is passed in (linkedom's `DOMParser`), so that importing the adapters does not load it.
 */

import type { XmlParser } from '../fetch/extract.js'

/** A `DOMParser` class: linkedom's, on the extraction thread or loaded on first use. */
export type { XmlParser }

/** An element of a parsed document, as far as the readers here need it. */
export interface XmlElement {
  readonly localName: string
  readonly children: ArrayLike<XmlElement> & Iterable<XmlElement>
  readonly textContent: string | null
  getAttribute(name: string): string | null
}

/** The document's root element, or undefined when the text is not XML with a root of that name. */
export function xmlRoot(text: string, rootName: string, Parser: XmlParser): XmlElement | undefined {
  let root: XmlElement | null | undefined
  try {
    root = (new Parser().parseFromString(text, 'text/xml') as { documentElement?: XmlElement | null }).documentElement
  } catch {
    return undefined
  }
  return root && nameOf(root) === rootName ? root : undefined
}

/** The name without its namespace prefix (`arxiv:doi` → `doi`): feeds bind prefixes as they like. */
export function nameOf(element: XmlElement): string {
  const name = element.localName ?? ''
  return name.slice(name.lastIndexOf(':') + 1)
}

export function childrenNamed(element: XmlElement | undefined, name: string): XmlElement[] {
  return element ? [...element.children].filter((child) => nameOf(child) === name) : []
}

export function childNamed(element: XmlElement | undefined, name: string): XmlElement | undefined {
  return childrenNamed(element, name)[0]
}

/** An element's text with whitespace runs collapsed; '' when there is none. */
export function textOf(element: XmlElement | undefined): string {
  return (element?.textContent ?? '').replace(/\s+/g, ' ').trim()
}
