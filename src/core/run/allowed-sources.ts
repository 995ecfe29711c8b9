/**
 * Which sources count (`sources` on the agent or a run): domains allowed or denied (each with its
 * subdomains) and a window of publication dates. Applied by the run to every search's results and
 * before every page read; a provider whose API can filter is handed the rules too.
 */
import { LaconicError } from '../contracts/laconic-error.js'
import type { SearchResult, SourceFilter, SourceFilterPart } from '../contracts/providers.js'

export type { SourceFilter, SourceFilterPart } from '../contracts/providers.js'

/** A domain as written by a user (`Example.COM.`, `*.example.com`, `https://example.com/x`, `bücher.de`), in the form hosts are compared in, or undefined. */
export function normalizeDomain(written: string): string | undefined {
  let text = written.trim()
  if (text.includes('://')) {
    try {
      text = new URL(text).hostname
    } catch {
      return undefined
    }
  }
  text = text.replace(/^\*?\./, '').replace(/\.+$/, '')
  if (!text || /[\s/?#@:]/.test(text)) return undefined
  try {
    // The URL parser lower-cases and maps an internationalized name to its punycode form.
    const host = new URL(`http://${text}/`).hostname.replace(/\.+$/, '')
    return host || undefined
  } catch {
    return undefined
  }
}

/** The host of `url`, normalized as domains are (undefined for a URL without one). */
export function hostOf(url: string): string | undefined {
  try {
    const host = new URL(url).hostname.replace(/\.+$/, '').toLowerCase()
    return host || undefined
  } catch {
    return undefined
  }
}

/** True when `host` is `domain` or one of its subdomains (`a.example.com` is under `example.com`; `evil-example.com` is not). */
export function hostUnder(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`)
}

/** A `SourceFilter` checked, with its domains normalized and its dates as day numbers: what the run applies. */
export interface SourceRules {
  readonly filter: SourceFilter
  readonly allow: readonly string[]
  readonly deny: readonly string[]
  /** First and last day allowed, as `YYYY-MM-DD` (lexically comparable). */
  readonly after?: string
  readonly before?: string
  readonly strictDates: boolean
}

/** The day an ISO date or year names, `YYYY-MM-DD`; `end` gives the last day of a year or month. */
function isoDay(value: string, end: boolean): string | undefined {
  const match = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?(?:T.*)?$/.exec(value.trim())
  if (!match) return undefined
  const [, year, month, day] = match
  if (month === undefined) return `${year}-${end ? '12-31' : '01-01'}`
  const monthNumber = Number(month)
  if (monthNumber < 1 || monthNumber > 12) return undefined
  const lastDay = new Date(Date.UTC(Number(year), monthNumber, 0)).getUTCDate()
  if (day === undefined) return `${year}-${month}-${end ? String(lastDay).padStart(2, '0') : '01'}`
  if (Number(day) < 1 || Number(day) > lastDay) return undefined
  return `${year}-${month}-${day}`
}

function domainList(value: unknown, name: string): string[] {
  if (value === undefined) return []
  if (!Array.isArray(value)) throw new LaconicError(`\`${name}\` must be a list of domains`, { code: 'config', hint: "e.g. ['example.com']" })
  return value.map((written) => {
    const domain = typeof written === 'string' ? normalizeDomain(written) : undefined
    if (!domain) throw new LaconicError(`\`${name}\` has a domain that is not one: ${JSON.stringify(written)}`, { code: 'config', hint: "e.g. 'example.com'" })
    return domain
  })
}

function dateBound(value: unknown, name: string, end: boolean): string | undefined {
  if (value === undefined) return undefined
  const day = typeof value === 'string' ? isoDay(value, end) : undefined
  if (!day)
    throw new LaconicError(`\`${name}\` must be an ISO date, got ${JSON.stringify(value) ?? String(value)}`, {
      code: 'config',
      hint: "e.g. '2024-01-31' or '2024'",
    })
  return day
}

/** Checks `sources` (a `config` error names what is wrong) and returns its rules, or undefined when it sets none. */
export function sourceRules(value: unknown, name = 'sources'): SourceRules | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new LaconicError(`\`${name}\` must be an object`, { code: 'config', hint: "e.g. { allow: ['example.com'], after: '2024-01-01' }" })
  }
  const filter = value as Record<string, unknown>
  const fields = ['allow', 'deny', 'after', 'before', 'strictDates']
  const unknown = Object.keys(filter).filter((key) => filter[key] !== undefined && !fields.includes(key))
  if (unknown.length)
    throw new LaconicError(`\`${name}\` has no option ${unknown.map((key) => `\`${key}\``).join(', ')}`, {
      code: 'config',
      hint: `its options: ${fields.join(', ')}`,
    })
  if (filter.strictDates !== undefined && typeof filter.strictDates !== 'boolean')
    throw new LaconicError(`\`${name}.strictDates\` must be true or false`, { code: 'config' })
  const after = dateBound(filter.after, `${name}.after`, false)
  const before = dateBound(filter.before, `${name}.before`, true)
  if (after && before && after > before) throw new LaconicError(`\`${name}.after\` (${after}) is later than \`${name}.before\` (${before})`, { code: 'config' })
  return {
    filter: filter as SourceFilter,
    allow: domainList(filter.allow, `${name}.allow`),
    deny: domainList(filter.deny, `${name}.deny`),
    ...(after ? { after } : {}),
    ...(before ? { before } : {}),
    strictDates: filter.strictDates === true,
  }
}

/** The run's rules: its own `sources` win over the agent's. */
export function runSourceRules(agent: unknown, run: unknown): SourceRules | undefined {
  return run !== undefined ? sourceRules(run) : sourceRules(agent)
}

/** True when the rules let the run use `url` (its host allowed and not denied). A URL without a host passes only without an `allow` list. */
export function urlAllowed(rules: SourceRules, url: string): boolean {
  const host = hostOf(url)
  if (!host) return rules.allow.length === 0
  if (rules.deny.some((domain) => hostUnder(host, domain))) return false
  return rules.allow.length === 0 || rules.allow.some((domain) => hostUnder(host, domain))
}

/** The span of days a result says it was published in: its `published` date, else its work's year; undefined when it gives neither. */
export function publishedSpan(result: Pick<SearchResult, 'published' | 'meta'>): [string, string] | undefined {
  const published = typeof result.published === 'string' ? result.published : undefined
  if (published) {
    const first = isoDay(published, false)
    const last = isoDay(published, true)
    if (first && last) return [first, last]
  }
  const year = result.meta?.year
  if (typeof year === 'number' && Number.isInteger(year) && year >= 0 && year <= 9999) {
    const text = String(year).padStart(4, '0')
    return [`${text}-01-01`, `${text}-12-31`]
  }
  return undefined
}

/**
 * True when the rules' dates let the run use a result: a dated result whose span overlaps the
 * window (a work dated only by its year counts for any day of it); an undated one unless
 * `strictDates` and the provider did not already filter by date itself (`datesApplied`).
 */
export function dateAllowed(rules: SourceRules, result: Pick<SearchResult, 'published' | 'meta'>, datesApplied = false): boolean {
  if (!rules.after && !rules.before) return true
  const span = publishedSpan(result)
  if (!span) return !rules.strictDates || datesApplied
  if (rules.after && span[1] < rules.after) return false
  if (rules.before && span[0] > rules.before) return false
  return true
}

/** How a result the run kept was dated, remembered for a read of its page: its date fields, and whether its provider filtered by date itself. */
export interface ResultDate {
  published?: string
  meta?: SearchResult['meta']
  datesApplied: boolean
}

/**
 * True when the rules' dates let the run use a page it read: judged by the page's own date
 * (`FetchedPage.published`), else by the date of the search result that led to it, else as an
 * undated source (kept unless `strictDates`).
 */
export function pageDateAllowed(rules: SourceRules, published: string | undefined, fromResult: ResultDate | undefined): boolean {
  if (published !== undefined && publishedSpan({ published })) return dateAllowed(rules, { published })
  if (fromResult) return dateAllowed(rules, fromResult, fromResult.datesApplied)
  return dateAllowed(rules, {})
}

/** The results the rules keep, and how many they removed. */
export function filterResults<T extends SearchResult>(
  rules: SourceRules,
  results: readonly T[],
  applied: ReadonlySet<SourceFilterPart> = new Set(),
): { kept: T[]; removed: number } {
  const kept = results.filter((result) => urlAllowed(rules, result.url) && dateAllowed(rules, result, applied.has('dates')))
  return { kept, removed: results.length - kept.length }
}
