/**
 * How the CLI prints an error: one line on stderr (a provider's multi-line message folded).
 * An error whose reason lies in its cause (`ErrorInfo.cause`, an `Error`'s `cause` chain: why a
 * folder could not be read, say) gets a second line with it under `--debug`, and without it a
 * pointer to `--debug`.
 */
import { causeText } from '../core/contracts/laconic-error.js'
import { printable } from './render/terminal-text.js'

/** Multi-line text on one line, without terminal control characters (a server's error text is not trusted). */
function oneLine(message: string): string {
  return printable(message.replace(/\s*\n\s*/g, ' ')).trim()
}

/** `laconic: error: MESSAGE` and, when there is a cause, `laconic: cause: CAUSE` (with `debug`) or a pointer to it. */
export function errorText(error: { message: string; cause?: string | undefined }, debug: boolean): string {
  const line = `laconic: error: ${oneLine(error.message)}`
  if (!error.cause) return `${line}\n`
  return debug ? `${line}\nlaconic: cause: ${oneLine(error.cause)}\n` : `${line} (--debug shows its cause)\n`
}

/** The same for a thrown value: its message, and the causes its message does not say. */
export function thrownErrorText(error: unknown, debug: boolean): string {
  const message = error instanceof Error ? error.message : String(error)
  return errorText({ message, cause: causeText(error) }, debug)
}
