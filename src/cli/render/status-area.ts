/**
 * A few lines at the bottom of a terminal, redrawn in place with ANSI escapes. The cursor stays
 * at the end of the last line, so erasing is: back to column 0, up the other lines, clear below.
 */
import type { Output } from './output.js'

export interface StatusArea {
  /** `style` (colours) applies after the lines are cut to the width, so escapes never count or get cut. */
  draw(lines: readonly string[], style?: (line: string, index: number) => string): void
  /** Erases the area, leaving the cursor where it started. */
  clear(): void
}

const ESC = '\u001b['

/** Cuts a line to the terminal width so it never wraps (a wrapped line would break the erase). */
function fit(line: string, columns: number | undefined): string {
  // A pseudo-terminal may report 0 columns: treat it as unknown.
  const width = Math.max(10, (columns || 80) - 1)
  return line.length > width ? `${line.slice(0, width - 1)}…` : line
}

export function createStatusArea(out: Output): StatusArea {
  let drawn = 0
  const erase = () => (drawn === 0 ? '' : `\r${drawn > 1 ? `${ESC}${drawn - 1}A` : ''}${ESC}J`)
  return {
    draw(lines, style = (line) => line) {
      out.write(erase() + lines.map((line, index) => style(fit(line, out.columns), index)).join('\n'))
      drawn = lines.length
    },
    clear() {
      if (drawn > 0) out.write(erase())
      drawn = 0
    },
  }
}
