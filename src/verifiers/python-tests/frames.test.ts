import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { encodeFrame, FrameReader } from './frames.js'

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
})
