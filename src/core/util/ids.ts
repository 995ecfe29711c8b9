/** Ids unique in a run (`q1`, `f2`, ...): one counter per prefix, which a checkpoint saves and a resume restores. */
export interface IdSource {
  newId(prefix: string): string
  /** The last number given out per prefix. */
  counters(): { [prefix: string]: number }
}

export function createIdSource(initial: Readonly<Record<string, number>> = {}): IdSource {
  const counters = new Map(Object.entries(initial))
  return {
    newId(prefix) {
      const n = (counters.get(prefix) ?? 0) + 1
      counters.set(prefix, n)
      return `${prefix}${n}`
    },
    counters: () => Object.fromEntries(counters),
  }
}
