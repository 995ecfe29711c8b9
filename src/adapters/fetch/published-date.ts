/**
 * When a page says it was published, read from its markup (before Readability rewrites it): the
 * first of, in order of how deliberately a publisher states it,
 * 1. JSON-LD `datePublished` (an article's structured data),
 * 2. the publication-date meta tags (`article:published_time`, `og:published_time`,
 *    `citation_publication_date`, Dublin Core, PRISM, ...),
 * 3. microdata `itemprop="datePublished"`,
 * 4. a `<time datetime>` inside the page's `<article>` (not one in a sidebar of other posts).
 * A value that is not an ISO date is passed over: the page's prose ("posted 3 days ago") is
 * never guessed at. A PDF's `CreationDate` is read the same way (`pdfDate`). Pages are hostile:
 * what is parsed is bounded (scripts, their size, the depth and count of JSON nodes walked).
 */

/** Meta names and properties that state a publication date, in the order they are trusted (lower-cased; `DC:` read as `dc.`). */
const META_NAMES = [
  'article:published_time',
  'og:published_time',
  'citation_publication_date',
  'citation_date',
  'citation_online_date',
  'dc.date.issued',
  'dcterms.issued',
  'dc.date',
  'dcterms.date',
  'dcterms.created',
  'prism.publicationdate',
  'bepress_citation_date',
  'datepublished',
  'pubdate',
  'publish-date',
  'parsely-pub-date',
  'sailthru.date',
]

/** JSON-LD scripts read at most, characters of each, and JSON nodes visited in all. */
const MAX_LD_SCRIPTS = 10
const MAX_LD_CHARS = 200_000
const MAX_LD_NODES = 500
const MAX_LD_DEPTH = 6

/** A date as a page writes it: `2019-03-29`, `2019/3/29`, `2019-03`, `2019`, or a date-time (`2019-03-29T09:00:49-08:00`). */
const ISO_DATE = /^(\d{4})(?:[-/](\d{1,2})(?:[-/](\d{1,2}))?)?(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?\s*(?:Z|[+-]\d{2}:?\d{2})?)?$/i

/**
 * The day (or month, or year) an ISO-like date names, as `YYYY-MM-DD` (`YYYY-MM`, `YYYY`); the
 * date as written, its time and zone dropped. Undefined for anything else (a month 13, a 31st of
 * February, prose, a year before 1000).
 */
export function isoPublished(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  const match = ISO_DATE.exec(value.trim().slice(0, 64))
  if (!match) return undefined
  const [, year, month, day] = match
  if (Number(year) < 1000) return undefined
  if (month === undefined) return year
  const monthNumber = Number(month)
  if (monthNumber < 1 || monthNumber > 12) return undefined
  const mm = String(monthNumber).padStart(2, '0')
  if (day === undefined) return `${year}-${mm}`
  const dayNumber = Number(day)
  if (dayNumber < 1 || dayNumber > new Date(Date.UTC(Number(year), monthNumber, 0)).getUTCDate()) return undefined
  return `${year}-${mm}-${String(dayNumber).padStart(2, '0')}`
}

/** A PDF date (`D:20060414165500+00'00'`, the `D:` optional) as `YYYY-MM-DD`, or undefined. */
export function pdfDate(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  const match = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?/.exec(value.trim())
  if (!match) return undefined
  const [, year, month, day] = match
  return isoPublished([year, month, day].filter((part) => part !== undefined).join('-'))
}

/** The first `datePublished` in a JSON-LD value (an object, a list, an `@graph`), walked within bounds. */
function ldDatePublished(root: unknown): string | undefined {
  let visited = 0
  const walk = (value: unknown, depth: number): string | undefined => {
    if (value === null || typeof value !== 'object' || depth > MAX_LD_DEPTH || ++visited > MAX_LD_NODES) return undefined
    if (Array.isArray(value)) {
      for (const item of value) {
        const found = walk(item, depth + 1)
        if (found) return found
      }
      return undefined
    }
    const node = value as Record<string, unknown>
    const own = isoPublished(Array.isArray(node.datePublished) ? node.datePublished[0] : node.datePublished)
    if (own) return own
    for (const key of ['@graph', 'mainEntity', 'mainEntityOfPage', 'hasPart']) {
      const found = walk(node[key], depth + 1)
      if (found) return found
    }
    return undefined
  }
  return walk(root, 0)
}

function fromJsonLd(document: Document): string | undefined {
  const scripts = [...document.querySelectorAll('script[type="application/ld+json" i]')].slice(0, MAX_LD_SCRIPTS)
  for (const script of scripts) {
    const text = script.textContent ?? ''
    if (text.length > MAX_LD_CHARS) continue
    try {
      const found = ldDatePublished(JSON.parse(text))
      if (found) return found
    } catch {
      // Malformed JSON-LD is common; the next source may say.
    }
  }
  return undefined
}

function fromMeta(document: Document): string | undefined {
  const byName = new Map<string, string>()
  for (const meta of document.querySelectorAll('meta[content]')) {
    const key = (meta.getAttribute('property') ?? meta.getAttribute('name') ?? meta.getAttribute('itemprop') ?? '').trim().toLowerCase()
    const name = key.replace(/^(dc|dcterms):/, '$1.')
    const date = isoPublished(meta.getAttribute('content'))
    if (name && date && !byName.has(name)) byName.set(name, date)
  }
  for (const name of META_NAMES) {
    const date = byName.get(name)
    if (date) return date
  }
  return undefined
}

function fromMicrodata(document: Document): string | undefined {
  for (const element of [...document.querySelectorAll('[itemprop~="datePublished"]')].slice(0, 20)) {
    const date = isoPublished(element.getAttribute('content') ?? element.getAttribute('datetime') ?? element.textContent)
    if (date) return date
  }
  return undefined
}

function fromArticleTime(document: Document): string | undefined {
  const time = document.querySelector('article time[datetime]') ?? document.querySelector('time[pubdate][datetime]')
  return isoPublished(time?.getAttribute('datetime'))
}

/** When the page says it was published (`YYYY-MM-DD`, or `YYYY-MM`, `YYYY`), or undefined when it does not say. */
export function publishedDate(document: Document): string | undefined {
  return fromJsonLd(document) ?? fromMeta(document) ?? fromMicrodata(document) ?? fromArticleTime(document)
}
