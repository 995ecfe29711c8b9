/** Where the CLI writes: a stream's `write` plus what it knows about the terminal. */
export interface Output {
  write(text: string): unknown
  readonly isTTY?: boolean | undefined
  readonly columns?: number | undefined
}
