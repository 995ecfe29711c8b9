/**
 * Typed arrays and ArrayBuffers bounded in bytes, on an extraction worker thread: the thread's
 * heap limit (`resourceLimits`) does not count their memory, and a decompression bomb is just
 * that, one stream that PDF.js decodes into a buffer it doubles until it holds gigabytes. Here
 * each constructor of the thread (`Uint8Array`, ..., `ArrayBuffer`) is replaced by one that
 * refuses a buffer larger than `maxBytes`, or one that would take the buffers it made and that
 * are not yet collected past `maxLiveBytes`: the allocation throws a `RangeError`, which the
 * reader sees as a page (or document) that could not be read. Views over an existing buffer
 * cost nothing and are not counted; buffers Node makes natively (a message's, zlib's) are not
 * either: they are bounded where they are made, `DecompressionStream`'s output here too.
 *
 * Installed once per thread, before the parsers load (so every module sees the bounded
 * constructors); never on the main thread.
 */

const TYPED_ARRAYS = [
  'Int8Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'Int16Array',
  'Uint16Array',
  'Int32Array',
  'Uint32Array',
  'Float32Array',
  'Float64Array',
  'BigInt64Array',
  'BigUint64Array',
] as const

export interface AllocationCap {
  /** Bytes one buffer may hold. */
  maxBytes: number
  /** Bytes the buffers made and not yet collected may hold in all (collected ones are counted off as the collector reports them). */
  maxLiveBytes: number
}

export interface AllocationMeter {
  /** Bytes of the buffers made and not yet reported collected. */
  liveBytes(): number
}

let installed: AllocationMeter | undefined

/** Bytes a constructor call allocates: a length, or a copy of an array-like; a view over a buffer allocates none. */
function allocatedBytes(args: readonly unknown[], bytesPerElement: number): number {
  const [first] = args
  if (typeof first === 'number') return first * bytesPerElement
  if (typeof first !== 'object' || first === null) return 0
  if (first instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && first instanceof SharedArrayBuffer)) return 0
  const length = (first as { length?: unknown }).length
  return typeof length === 'number' ? length * bytesPerElement : 0
}

export function capAllocations({ maxBytes, maxLiveBytes }: AllocationCap): AllocationMeter {
  if (installed) return installed
  let live = 0
  const collected = new FinalizationRegistry<number>((bytes) => {
    live -= bytes
  })
  const admit = (bytes: number): void => {
    if (bytes > maxBytes) throw new RangeError(`over the buffer cap: a buffer of ${bytes} bytes is more than the ${maxBytes} one may hold`)
    if (live + bytes > maxLiveBytes) throw new RangeError(`over the buffer cap: the buffers not yet collected would pass ${maxLiveBytes} bytes`)
  }
  const bounded = <C extends abstract new (...args: never[]) => object>(original: C, bytesOf: (args: readonly unknown[]) => number): C =>
    new Proxy(original, {
      construct(target, args, newTarget) {
        const bytes = bytesOf(args)
        admit(bytes)
        const made = Reflect.construct(target, args, newTarget) as object
        if (bytes > 0) {
          live += bytes
          collected.register(made, bytes)
        }
        return made
      },
    })
  const globals = globalThis as unknown as Record<string, new (...args: never[]) => object>
  for (const name of TYPED_ARRAYS) {
    const original = globals[name]
    if (!original) continue
    const perElement = (original as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT
    const replacement = bounded(original, (args) => allocatedBytes(args, perElement))
    globals[name] = replacement
    // `slice`, `map`, `filter` make their copies through the prototype's constructor: bounded too.
    Object.defineProperty(original.prototype, 'constructor', { value: replacement, writable: true, configurable: true })
  }
  globals.ArrayBuffer = bounded(ArrayBuffer, (args) => {
    const [length, options] = args as [unknown, { maxByteLength?: unknown } | undefined]
    const most = typeof options?.maxByteLength === 'number' ? options.maxByteLength : 0
    return Math.max(typeof length === 'number' ? length : 0, most)
  })
  boundDecompression(maxBytes)
  installed = { liveBytes: () => live }
  return installed
}

/**
 * `DecompressionStream` that errors once its output passes `maxBytes`: PDF.js inflates a Flate
 * stream through it first (zlib, natively, so none of its chunks pass through the constructors
 * above) and holds every chunk until the end, then falls back to its own inflater, which the
 * bounded constructors stop.
 */
function boundDecompression(maxBytes: number): void {
  const Native = globalThis.DecompressionStream
  if (!Native) return
  class BoundedDecompressionStream {
    readonly readable: ReadableStream<Uint8Array>
    readonly writable: WritableStream<BufferSource>
    constructor(format: CompressionFormat) {
      const inner = new Native(format)
      let total = 0
      this.writable = inner.writable
      this.readable = inner.readable.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            total += chunk.byteLength
            if (total > maxBytes) controller.error(new RangeError(`over the buffer cap: a stream inflates to more than ${maxBytes} bytes`))
            else controller.enqueue(chunk)
          },
        }),
      )
    }
  }
  globalThis.DecompressionStream = BoundedDecompressionStream as unknown as typeof DecompressionStream
}
