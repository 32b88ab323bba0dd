import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { encodeFrame, FrameReader, textInSlices } from './frames.js'

describe('judge frames', () => {
  it('messages encoded and read back in chunks of any size arrive whole and in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue(), { minLength: 1, maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 20 }),
        (messages, cuts) => {
          const bytes = Buffer.concat(messages.map((m) => encodeFrame(m)))
          const reader = new FrameReader()
          const got: unknown[] = []
          let at = 0
          for (let i = 0; at < bytes.length; i++) {
            const size = cuts[i % cuts.length]!
            got.push(...reader.push(bytes.subarray(at, at + size)))
            at += size
          }
          expect(got).toEqual(JSON.parse(JSON.stringify(messages)))
        },
      ),
      { seed: 42, numRuns: 200 },
    )
  })

  it('refuses a frame that claims more than the limit, before buffering it', () => {
    const head = Buffer.alloc(4)
    head.writeUInt32BE(0xffffffff, 0)
    expect(() => new FrameReader().push(head)).toThrow(/worker frame of 4294967295 bytes exceeds/)
  })

  it('reads the raw output after a result frame, in chunks of any size, and decodes it a slice at a time', async () => {
    const text = (n: number, unit: string) => unit.repeat(n)
    const out = Buffer.from(text(100_000, 'é€'), 'utf8')
    const err = Buffer.from('tail', 'utf8')
    const bytes = Buffer.concat([
      encodeFrame({ type: 'started' }),
      encodeFrame({ type: 'result', output: [out.length, err.length] }),
      out,
      err,
      encodeFrame({ type: 'ready' }),
    ])
    for (const size of [7, 65_536, bytes.length]) {
      const reader = new FrameReader()
      const got: { type?: string; outputParts?: Buffer[][] }[] = []
      for (let at = 0; at < bytes.length; at += size)
        got.push(...(reader.push(bytes.subarray(at, at + size)) as typeof got))
      expect(got.map((f) => f.type)).toEqual(['started', 'result', 'ready'])
      const [stdout, stderr] = got[1]!.outputParts!
      expect(await textInSlices(stdout!)).toBe(text(100_000, 'é€'))
      expect(await textInSlices(stderr!)).toBe('tail')
      // The frame Node parsed is the envelope alone.
      expect(reader.largestFrameBytes).toBeLessThan(100)
    }
  })
})
