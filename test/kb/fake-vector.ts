/**
 * The deterministic embedding of knowledge-base tests and benchmarks: each word is hashed to one
 * of `dimensions` axes, so texts that share words point the same way. No test runner import, so
 * the benchmarks use it too.
 */
function wordAxis(word: string, dimensions: number): number {
  let hash = 0x811c9dc5
  for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193)
  return (hash >>> 0) % dimensions
}

/** The text's words counted on their axes, scaled to length 1 (all zeros for a text with no words). */
export function fakeVector(text: string, dimensions = 64): Float32Array {
  const vector = new Float32Array(dimensions)
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const axis = wordAxis(word, dimensions)
    vector[axis] = (vector[axis] as number) + 1
  }
  const length = Math.hypot(...vector)
  if (length > 0) for (let i = 0; i < dimensions; i++) vector[i] = (vector[i] as number) / length
  return vector
}
