import { StringDecoder } from 'node:string_decoder'

/**
 * The wire between this process and a judge (`judge.py`): length-prefixed JSON frames both ways
 * (codec.py is the Python side).
 */
/**
 * Largest frame accepted from a judge. Its frames are its own (capped output, reprs cut to 500
 * characters), never raw bytes of the candidate's, so they stay far below this.
 */
const MAX_FRAME_BYTES = 64 * 1024 * 1024

/** Most raw bytes that may follow a frame (a result's output: two streams at the 16 MiB cap, as UTF-8). */
const MAX_PAYLOAD_BYTES = 2 * 16 * 1024 * 1024 * 3

/**
 * Splits a byte stream into length-prefixed JSON frames. A frame with `output: [a, b]` is followed
 * by a + b raw bytes (a result's stdout and stderr as UTF-8), kept as the frame's `outputParts`
 * (Buffers, not copied together) for the caller to decode a slice at a time.
 */
export class FrameReader {
  private chunks: Buffer[] = []
  private length = 0
  private awaiting: { frame: { outputParts?: Buffer[][] }; sizes: number[] } | undefined
  /** The largest frame read so far, in bytes (its raw output not counted). */
  largestFrameBytes = 0

  push(chunk: Buffer): unknown[] {
    this.chunks.push(chunk)
    this.length += chunk.length
    const frames: unknown[] = []
    for (;;) {
      if (this.awaiting) {
        const { frame, sizes } = this.awaiting
        const need = sizes.reduce((a, b) => a + b, 0)
        if (this.length < need) break
        frame.outputParts = sizes.map((size) => this.take(size))
        this.awaiting = undefined
        frames.push(frame)
        continue
      }
      if (this.length < 4) break
      const first = this.chunks[0] as Buffer
      const head = first.length >= 4 ? first : Buffer.concat(this.chunks)
      const size = head.readUInt32BE(0)
      if (size > MAX_FRAME_BYTES) throw new Error(`worker frame of ${size} bytes exceeds ${MAX_FRAME_BYTES}`)
      if (this.length < 4 + size) break
      this.largestFrameBytes = Math.max(this.largestFrameBytes, size)
      this.take(4)
      const frame = JSON.parse(Buffer.concat(this.take(size)).toString('utf8')) as {
        output?: unknown
        outputParts?: Buffer[][]
      }
      const sizes = frame !== null && typeof frame === 'object' ? frame.output : undefined
      if (Array.isArray(sizes) && sizes.length === 2 && sizes.every((n) => Number.isSafeInteger(n) && n >= 0)) {
        if ((sizes as number[])[0]! + (sizes as number[])[1]! > MAX_PAYLOAD_BYTES)
          throw new Error(`worker output of ${String(sizes)} bytes exceeds ${MAX_PAYLOAD_BYTES}`)
        this.awaiting = { frame, sizes: sizes as number[] }
        continue
      }
      frames.push(frame)
    }
    return frames
  }

  /** The next `count` bytes, as slices of the chunks read (nothing copied; the chunks dropped in one splice). */
  private take(count: number): Buffer[] {
    const out: Buffer[] = []
    let left = count
    let used = 0
    while (left > 0) {
      const chunk = this.chunks[used] as Buffer
      if (chunk.length <= left) {
        out.push(chunk)
        used++
        left -= chunk.length
      } else {
        out.push(chunk.subarray(0, left))
        this.chunks[used] = chunk.subarray(left)
        left = 0
      }
    }
    this.chunks.splice(0, used)
    this.length -= count
    return out
  }
}

/** How much of a stream is decoded before the event loop gets a turn. */
const DECODE_SLICE_BYTES = 256 * 1024

/**
 * UTF-8 bytes as text, 256 KiB at a time with a turn of the event loop in between, never the whole
 * decode in one go: a result frame with 2 × 16 MiB of output as JSON blocked Node's loop 460-770 ms
 * in JSON.parse (load 24, 2 cores), its sliced decode at most 23-46 ms (17-25 ms at a 5 MiB cap).
 *
 * @example
 * await textInSlices([Buffer.from('h\u00e9')]) // => 'hé'
 */
export async function textInSlices(parts: readonly Buffer[]): Promise<string> {
  const decoder = new StringDecoder('utf8')
  let text = ''
  let since = 0
  for (const part of parts) {
    for (let at = 0; at < part.length; at += DECODE_SLICE_BYTES) {
      const slice = part.subarray(at, at + DECODE_SLICE_BYTES)
      text += decoder.write(slice)
      since += slice.length
      if (since >= DECODE_SLICE_BYTES) {
        since = 0
        await new Promise<void>((resolve) => setImmediate(resolve))
      }
    }
  }
  return text + decoder.end()
}

/** One message as a frame: a 4-byte big-endian length, then the JSON. */
export function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8')
  const head = Buffer.alloc(4)
  head.writeUInt32BE(body.length, 0)
  return Buffer.concat([head, body])
}
