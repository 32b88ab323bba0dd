import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { normaliseMessages, splitText, zodFailure } from './shared.js'

describe('splitText', () => {
  it('splits into up to 4 non-empty pieces without breaking code points', () => {
    expect(splitText('')).toEqual([])
    expect(splitText('ab')).toEqual(['a', 'b'])
    expect(splitText('abcdefgh')).toEqual(['ab', 'cd', 'ef', 'gh'])
    const emoji = '👍🏽 ok 🎉'
    expect(splitText(emoji).join('')).toBe(emoji)
    expect(splitText(emoji).every((piece) => !/[\uD800-\uDBFF]$/.test(piece))).toBe(true)
  })
})

describe('normaliseMessages', () => {
  it('puts system prompts first and joins the parts of one message with newlines', () => {
    expect(
      normaliseMessages([
        { role: 'user', message: 0, text: 'q1' },
        { role: 'system', message: 1, text: 'late system' },
        { role: 'user', message: 2, text: 'part a' },
        { role: 'user', message: 2, text: 'part b' },
      ]),
    ).toEqual([
      { role: 'system', content: 'late system' },
      { role: 'user', content: 'q1' },
      { role: 'user', content: 'part a\npart b' },
    ])
  })
})

describe('zodFailure', () => {
  const Body = z.object({
    content: z.union([z.string(), z.array(z.object({ type: z.literal('text'), text: z.string() }))]),
  })
  const fail = (value: unknown) => {
    const parsed = Body.safeParse(value)
    if (parsed.success) throw new Error('expected a failure')
    return zodFailure(parsed.error)
  }

  it('follows a union into the branch the value was meant for, naming the nested field', () => {
    expect(fail({ content: [{ type: 'text' }] })).toEqual({
      ok: false,
      message: 'Invalid request body: content[0].text: Invalid input: expected string, received undefined',
      param: 'content[0].text',
    })
  })

  it('lists the expected types when no branch fits', () => {
    expect(fail({ content: 5 }).message).toBe('Invalid request body: content: Invalid input: expected string or array')
    expect(fail({}).param).toBe('content')
  })
})
