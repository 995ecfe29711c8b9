import { concatBytes } from './concat-bytes.js'

/** The request body as a JSON object, or why not: too big, or not an object. */
export async function readJsonObject(request: Request, maxBytes: number): Promise<Record<string, unknown> | 'too-large' | 'invalid'> {
  const text = await readText(request, maxBytes)
  if (text === undefined) return 'too-large'
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : 'invalid'
  } catch {
    return 'invalid'
  }
}

/** The body as text, or undefined past `maxBytes` (the rest is not read). */
async function readText(request: Request, maxBytes: number): Promise<string | undefined> {
  const declared = Number(request.headers.get('content-length') ?? '0')
  if (declared > maxBytes) return undefined
  if (!request.body) return ''
  const reader = request.body.getReader()
  const parts: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel().catch(() => {})
      return undefined
    }
    parts.push(value)
  }
  return new TextDecoder().decode(concatBytes(parts))
}
