/**
 * Text from models and web pages, made safe to print on a terminal. An ESC (or a C1 control)
 * in a page title or a query would otherwise be a terminal escape sequence: it could clear the
 * screen, retitle the window or hide text. Line breaks and tabs are left to the caller.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this regex's job
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g

export function printable(text: string): string {
  return text.replace(CONTROL, '')
}

/** One printable line of at most `max` characters, whitespace runs collapsed. */
export function oneLine(text: string, max: number): string {
  const line = printable(text.replace(/\s+/g, ' ')).trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}
