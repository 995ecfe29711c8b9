import type { Output } from './output.js'
import type { Renderer } from './renderer.js'

/** `--format json`: nothing while the run works, then the whole `ResearchResult`. */
export function jsonRenderer(stdout: Output): Renderer {
  return {
    event: () => {},
    end: (result) => stdout.write(`${JSON.stringify(result, null, 2)}\n`),
  }
}
