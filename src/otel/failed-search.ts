/**
 * A failed search reaches the stream only as a `warning` (it has no `queryId`); the runtime
 * words it `search "<query>" failed: <why>`. This finds which open search it names (the
 * oldest, should two ask the same thing).
 */
export function failedQueryId(message: string, openSearches: ReadonlyMap<string, { query: string }>): string | undefined {
  for (const [queryId, { query }] of openSearches) {
    if (message.startsWith(`search "${query}" failed`)) return queryId
  }
  return undefined
}
