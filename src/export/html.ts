import { documentOf, linkable, paragraphsOf, type ExportableResult } from './document.js'

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
/** Text as HTML text: every character that could open markup escaped. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!)

const STYLE = `body{font:16px/1.6 Georgia,serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.9rem;line-height:1.25}h2{font-size:1.35rem;margin-top:2rem}
nav{border:1px solid #ddd;padding:.5rem 1rem;margin:1rem 0 2rem}nav ol{margin:.25rem 0}
a{color:#1f4e96}a.cite{text-decoration:none;font-size:.85em}
ol.refs{padding-left:0;list-style:none}ol.refs li{margin:.4rem 0;overflow-wrap:anywhere}
@media print{body{margin:0;max-width:none;font-size:11pt}nav{page-break-after:always;border:none}
h2{page-break-after:avoid}a{color:inherit;text-decoration:none}ol.refs a::after{content:""}}`

/**
 * The result as one self-contained HTML page: inline styles with print rules, a table of
 * contents, each `[n]` linked to its reference. Every text of the result is escaped (a page, a
 * model or a search result may hold markup), and only http(s) URLs become links.
 */
export function toHTML(result: ExportableResult): string {
  const doc = documentOf(result)
  const known = new Set(doc.references.map((r) => r.index))
  const inline = (text: string) =>
    escapeHtml(text).replace(/\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\]/g, (marker, list: string) => {
      const numbers = list.split(',').map((n) => Number(n.trim()))
      if (!numbers.every((n) => known.has(n))) return marker
      return `[${numbers.map((n) => `<a class="cite" href="#ref-${n}">${n}</a>`).join(', ')}]`
    })
  const body = (text: string) =>
    paragraphsOf(text)
      .map((p) => (p.kind === 'list' ? `<ul>${p.items.map((i) => `<li>${inline(i)}</li>`).join('')}</ul>` : `<p>${inline(p.text)}</p>`))
      .join('\n')
  const headed = doc.blocks.map((b, i) => ({ ...b, id: `s-${i + 1}` }))
  const toc = headed.filter((b) => b.heading)
  const sections = headed.map((b) =>
    b.heading ? `<section id="${b.id}"><h2>${escapeHtml(b.heading)}</h2>\n${body(b.text)}</section>` : `<section>${body(b.text)}</section>`,
  )
  if (doc.references.length) {
    const items = doc.references.map((r) => {
      const url = escapeHtml(r.url)
      const link = linkable(r.url) ? `<a href="${url}">${url}</a>` : url
      return `<li id="ref-${r.index}">[${r.index}] ${r.title ? `${escapeHtml(r.title)}. ` : ''}${link}</li>`
    })
    sections.push(`<section id="references"><h2>References</h2>\n<ol class="refs">${items.join('\n')}</ol></section>`)
  }
  const tocItems = [
    ...toc.map((b) => `<li><a href="#${b.id}">${escapeHtml(b.heading!)}</a></li>`),
    ...(doc.references.length ? ['<li><a href="#references">References</a></li>'] : []),
  ]
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${escapeHtml(doc.title)}</title><style>${STYLE}</style></head>
<body><h1>${escapeHtml(doc.title)}</h1>
${tocItems.length > 1 ? `<nav aria-label="Contents"><strong>Contents</strong><ol>${tocItems.join('')}</ol></nav>` : ''}
${sections.join('\n')}
</body></html>
`
}
