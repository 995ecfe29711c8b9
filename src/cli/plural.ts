/** `1 chunk`, `3 chunks`, `1 query`, `2 queries`: every count the CLI prints agrees with its number. */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`
}
