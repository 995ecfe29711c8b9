/**
 * Readable plain text from a DOM subtree: one paragraph per block element, headings kept
 * as `#` lines and list items as `- ` lines, so a model still sees the page's structure.
 * Walks with an explicit stack: deeply nested markup cannot overflow the call stack.
 */

const SKIPPED = new Set(['HEAD', 'SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'IFRAME', 'OBJECT', 'CANVAS', 'BUTTON', 'SELECT', 'TEXTAREA', 'INPUT'])
const BLOCKS = new Set([
  'ADDRESS',
  'ARTICLE',
  'ASIDE',
  'BLOCKQUOTE',
  'BR',
  'DD',
  'DETAILS',
  'DIV',
  'DL',
  'DT',
  'FIGCAPTION',
  'FIGURE',
  'FOOTER',
  'FORM',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HEADER',
  'HR',
  'LI',
  'MAIN',
  'NAV',
  'OL',
  'P',
  'PRE',
  'SECTION',
  'SUMMARY',
  'TABLE',
  'TD',
  'TH',
  'TR',
  'UL',
])

type Step = { node: Node } | { close: string }

export function htmlToText(root: Node): string {
  const paragraphs: string[] = []
  let line = ''
  let prefix = ''
  let preformatted = 0
  // Opening a block keeps a pending prefix when nothing was written yet (`<h2><span>` → `## `).
  const flush = (closing: boolean) => {
    const text = preformatted > 0 ? line.replace(/^\n+|\s+$/g, '') : line.replace(/\s+/g, ' ').trim()
    if (text) paragraphs.push(prefix + text)
    line = ''
    if (text || closing) prefix = ''
  }

  const stack: Step[] = [{ node: root }]
  while (stack.length > 0) {
    const step = stack.pop() as Step
    if ('close' in step) {
      flush(true)
      if (step.close === 'PRE') preformatted -= 1
      continue
    }
    const { node } = step
    if (node.nodeType === 3) {
      line += node.textContent ?? ''
      continue
    }
    if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) continue
    const tag = ((node as Element).tagName ?? '').toUpperCase()
    if (SKIPPED.has(tag)) continue
    if (BLOCKS.has(tag)) {
      flush(false)
      const heading = /^H([1-6])$/.exec(tag)
      if (heading) prefix = `${'#'.repeat(Number(heading[1]))} `
      else if (tag === 'LI') prefix = '- '
      if (tag === 'PRE') preformatted += 1
      stack.push({ close: tag })
    }
    const children = node.childNodes ? Array.from(node.childNodes) : []
    for (let index = children.length - 1; index >= 0; index--) stack.push({ node: children[index] as Node })
  }
  flush(true)
  return paragraphs.join('\n\n')
}
