import type { Output } from './output.js'
import type { Renderer } from './renderer.js'

/** `--format ndjson`: one event per line on stdout (the same lines `toNDJSON` writes), for jq, logs and files. */
export function ndjsonRenderer(stdout: Output): Renderer {
  return {
    event: (event) => stdout.write(`${JSON.stringify(event)}\n`),
    end: () => {},
  }
}
