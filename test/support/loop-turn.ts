/**
 * Whether `work` is still pending once the event loop has turned (a `setImmediate`). An async
 * function that parses on the main thread does it in microtasks, before the loop turns, so it
 * is done by then however long it took (the loop was blocked meanwhile); one that hands the
 * parse to a worker thread is not, when the parse takes longer than a turn. Start `work` with
 * everything it loads already loaded (read a small page first), so no I/O comes before the parse.
 * An order of events, not a timing: no clock is read.
 */
export async function pendingAfterALoopTurn(work: Promise<unknown>): Promise<boolean> {
  let settled = false
  work.then(
    () => (settled = true),
    () => (settled = true),
  )
  await new Promise((resolve) => setImmediate(resolve))
  return !settled
}
