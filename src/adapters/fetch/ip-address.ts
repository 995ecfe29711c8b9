/**
 * IP literal parsing for the SSRF guard. Accepts every textual form a URL parser, a DNS
 * answer or `inet_aton` would accept, because an attacker picks whichever form slips
 * past a naive check: `127.1`, `2130706433`, `0x7f.0.0.1`, `0177.0.0.1`, `::ffff:127.0.0.1`.
 * Both parsers are total: anything else returns `undefined`.
 */

/** One IPv4 part in decimal, octal (leading 0) or hex (0x) notation. */
function parseIPv4Part(part: string): number | undefined {
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16)
  if (/^0[0-7]+$/.test(part)) return Number.parseInt(part.slice(1), 8)
  if (/^(0|[1-9][0-9]*)$/.test(part)) return Number(part)
  return undefined
}

/**
 * An IPv4 address as an unsigned 32-bit number, from dotted quads or the shorter
 * `inet_aton` forms (`a`, `a.b`, `a.b.c`: the last part fills the remaining bytes).
 */
export function parseIPv4(text: string): number | undefined {
  const trimmed = text.endsWith('.') ? text.slice(0, -1) : text
  const parts = trimmed.split('.')
  if (parts.length === 0 || parts.length > 4) return undefined
  const values: number[] = []
  for (const part of parts) {
    const value = parseIPv4Part(part)
    if (value === undefined || !Number.isFinite(value)) return undefined
    values.push(value)
  }
  const last = values.pop() as number
  if (values.some((value) => value > 255)) return undefined
  const lastBits = 8 * (4 - values.length)
  if (last >= 2 ** lastBits) return undefined
  let address = 0
  for (const value of values) address = address * 256 + value
  return address * 2 ** lastBits + last
}

/**
 * An IPv6 address as 16 bytes. Brackets and a zone id (`%eth0`, `%25eth0`) are ignored;
 * a trailing dotted IPv4 (`::ffff:10.0.0.1`) is accepted.
 */
export function parseIPv6(text: string): Uint8Array | undefined {
  let body = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text
  const zone = body.indexOf('%')
  if (zone !== -1) body = body.slice(0, zone)
  if (!body.includes(':')) return undefined

  const groups: number[] = []
  const words = (segment: string): number[] | undefined => {
    if (segment === '') return []
    const out: number[] = []
    const pieces = segment.split(':')
    for (const [index, piece] of pieces.entries()) {
      if (index === pieces.length - 1 && piece.includes('.')) {
        if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(piece)) return undefined
        const v4 = parseIPv4(piece)
        if (v4 === undefined) return undefined
        out.push(Math.floor(v4 / 65536), v4 % 65536)
      } else {
        if (!/^[0-9a-f]{1,4}$/i.test(piece)) return undefined
        out.push(Number.parseInt(piece, 16))
      }
    }
    return out
  }

  const halves = body.split('::')
  if (halves.length > 2) return undefined
  if (halves.length === 2) {
    const head = words(halves[0] as string)
    const tail = words(halves[1] as string)
    if (!head || !tail || head.length + tail.length > 7) return undefined
    groups.push(...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail)
  } else {
    const all = words(body)
    if (all?.length !== 8) return undefined
    groups.push(...all)
  }

  const bytes = new Uint8Array(16)
  for (const [index, group] of groups.entries()) {
    bytes[index * 2] = group >> 8
    bytes[index * 2 + 1] = group & 0xff
  }
  return bytes
}
