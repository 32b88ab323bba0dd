import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { describeZodError } from './zod-errors.js'

describe('describeZodError', () => {
  it('names every failing field by its dotted path, indexes in brackets', () => {
    const schema = z.object({ a: z.object({ b: z.array(z.object({ c: z.number() })) }), d: z.string() })
    const result = schema.safeParse({ a: { b: [{ c: 1 }, { c: 'x' }] }, d: 3 })
    expect(result.success).toBe(false)
    const text = describeZodError(result.error!)
    const lines = text.split('; ')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/^a\.b\[1\]\.c: /)
    expect(lines[1]).toMatch(/^d: /)
  })

  it('says (root) for a problem with the whole value', () => {
    const result = z.object({ a: z.number() }).safeParse('nope')
    expect(describeZodError(result.error!)).toMatch(/^\(root\): /)
  })

  it('handles a top-level array index', () => {
    const result = z.array(z.number()).safeParse([1, 'x'])
    expect(describeZodError(result.error!)).toMatch(/^\[1\]: /)
  })
})
