/**
 * The wire between this process and a judge (`judge.py`): length-prefixed JSON frames both ways
 * (codec.py is the Python side).
 */
/**
 * Largest frame accepted from a judge. Its frames are its own (capped output, reprs cut to 500
 * characters), never raw bytes of the candidate's, so they stay far below this.
 */
const MAX_FRAME_BYTES = 64 * 1024 * 1024

/** Splits a byte stream into length-prefixed JSON frames. */
export class FrameReader {
  private chunks: Buffer[] = []
  private length = 0
  /** The largest frame read so far, in bytes. */
  largestFrameBytes = 0

  push(chunk: Buffer): unknown[] {
    this.chunks.push(chunk)
    this.length += chunk.length
    const frames: unknown[] = []
    while (this.length >= 4) {
      const first = this.chunks[0] as Buffer
      const head = first.length >= 4 ? first : Buffer.concat(this.chunks)
      const size = head.readUInt32BE(0)
      if (size > MAX_FRAME_BYTES) throw new Error(`worker frame of ${size} bytes exceeds ${MAX_FRAME_BYTES}`)
      if (this.length < 4 + size) break
      this.largestFrameBytes = Math.max(this.largestFrameBytes, size)
      const all = this.chunks.length === 1 ? first : Buffer.concat(this.chunks)
      frames.push(JSON.parse(all.subarray(4, 4 + size).toString('utf8')))
      const rest = all.subarray(4 + size)
      this.chunks = rest.length > 0 ? [rest] : []
      this.length = rest.length
    }
    return frames
  }
}

/** One message as a frame: a 4-byte big-endian length, then the JSON. */
export function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8')
  const head = Buffer.alloc(4)
  head.writeUInt32BE(body.length, 0)
  return Buffer.concat([head, body])
}
