import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { hangingWrap, pad, visibleLength, wideFromEnv, wrapLine, wrapText } from './text-layout.js'

const word = fc.stringMatching(/^[a-z…›·–]{1,14}$/)

describe('visibleLength and pad', () => {
  it('count characters, not bytes or colour codes', () => {
    expect(visibleLength('a…›·–')).toBe(5)
    expect(visibleLength('\u001b[31mred\u001b[39m')).toBe(3)
    expect(pad('…', 3)).toBe('…  ')
    expect(pad('\u001b[1m7\u001b[22m', 3, true)).toBe('  \u001b[1m7\u001b[22m')
    expect(pad('toolong', 3)).toBe('toolong')
  })
})

describe('wrapLine', () => {
  it('wraps at spaces within the width, continuation lines indented, and keeps a word longer than a line whole (a path stays copyable)', () => {
    expect(wrapLine(' short', 20)).toEqual([' short'])
    expect(wrapLine(' one two three four five six', 12)).toEqual([' one two', '   three', '   four five', '   six'])
    const path = `/tmp/${'y'.repeat(25)}/run`
    expect(wrapLine(`x resume ${path} now`, 10)).toEqual(['x resume', `  ${path}`, '  now'])
  })

  it('keeps every word in order and every line within the width unless it is one word (property)', () => {
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 30 }), fc.integer({ min: 8, max: 60 }), (words, width) => {
        const lines = wrapLine(words.join(' '), width)
        expect(lines.flatMap((l) => l.trim().split(/ +/))).toEqual(words)
        for (const l of lines) if (l.trim().includes(' ')) expect(visibleLength(l)).toBeLessThanOrEqual(width)
      }),
      { seed: 29, numRuns: 300 },
    )
  })

  it('wraps texts line by line, leaves the wide view alone, and hangs a definition under its prefix', () => {
    expect(wrapText('first line\nsecond, longer line', 13)).toBe('first line\nsecond,\n  longer line')
    expect(wrapText('x '.repeat(200), null)).toBe('x '.repeat(200))
    expect(hangingWrap('  --k <k>  ', 'compare Pass@k with Seq@k at this k', 30)).toEqual([
      '  --k <k>  compare Pass@k with',
      '           Seq@k at this k',
    ])
    expect([
      wideFromEnv({ SEQK_WIDE: '1' }),
      wideFromEnv({ SEQK_WIDE: 'yes' }),
      wideFromEnv({}),
      wideFromEnv({ SEQK_WIDE: '0' }),
    ]).toEqual([true, true, false, false])
  })
})
