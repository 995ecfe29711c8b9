/**
 * Streams sections in outline order while they are written side by side. The section at the
 * head streams live; a later one that writes ahead is held (its pieces kept, in order) until
 * every section before it has streamed, then released at once; a section that ends is followed
 * by every held section after it. Pure bookkeeping: what each step puts on the stream is the
 * caller's (`render`), so the order is tested without a model.
 */
export interface SectionRender<E> {
  /** The section starts streaming. */
  open(index: number): E[]
  /** A piece of the section's text, as it streams. */
  piece(index: number, text: string): E[]
  /** The section has streamed all its text. */
  close(index: number): E[]
}

export interface InOrder<E> {
  /** A piece of section `index`: its events now when it is the head, else none (held). */
  push(index: number, text: string): E[]
  /** Section `index` is written: its end now (and the held sections after it) when it is the head, else none. */
  end(index: number): E[]
  /** The next section to stream (`count` once all have). */
  head(): number
}

/** Sections `first`..`count - 1` to stream in order (those before `first` streamed already). */
export function inOrder<E>(count: number, first: number, render: SectionRender<E>): InOrder<E> {
  const held = new Map<number, { pieces: string[]; done: boolean }>()
  let head = first
  let opened = false
  const slot = (index: number) => {
    const entry = held.get(index) ?? { pieces: [], done: false }
    held.set(index, entry)
    return entry
  }
  /** Opens the head if it is not yet, and streams what it holds; moves on past every finished section. */
  const advance = (): E[] => {
    const out: E[] = []
    while (head < count) {
      const entry = held.get(head)
      if (!entry) break
      if (!opened) {
        out.push(...render.open(head))
        opened = true
      }
      for (const text of entry.pieces) out.push(...render.piece(head, text))
      entry.pieces = []
      if (!entry.done) break
      out.push(...render.close(head))
      held.delete(head)
      head++
      opened = false
    }
    return out
  }
  return {
    push(index, text) {
      if (index < head || index >= count || !text) return []
      slot(index).pieces.push(text)
      return index === head ? advance() : []
    },
    end(index) {
      if (index < head || index >= count) return []
      slot(index).done = true
      return index === head ? advance() : []
    },
    head: () => head,
  }
}
