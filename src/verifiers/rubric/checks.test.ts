import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonBody, runCheck, wordCount } from './checks.js'

describe('wordCount', () => {
  it('counts tokens holding a letter or a digit', () => {
    expect(wordCount('')).toBe(0)
    expect(wordCount('  one  two\nthree\t')).toBe(3)
    expect(wordCount('Stay cool — drink water.')).toBe(4)
    expect(wordCount('- item 1\n- item 2')).toBe(4)
    expect(wordCount('80°C, déjà vu, 東京')).toBe(4)
  })

  it('never exceeds the number of whitespace-separated tokens', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(wordCount(s)).toBeLessThanOrEqual(s.split(/\s+/).filter(Boolean).length)
      }),
      { seed: 7 },
    )
  })
})

describe('jsonBody', () => {
  it('takes the whole answer or one fence that is the whole answer', () => {
    expect(jsonBody(' {"a": 1} ')).toBe('{"a": 1}')
    expect(jsonBody('```json\n{"a": 1}\n```')).toBe('{"a": 1}')
    expect(jsonBody('```\n[1]\n```\n')).toBe('[1]')
    expect(jsonBody('Here: ```json\n{"a": 1}\n```')).toBe('Here: ```json\n{"a": 1}\n```')
  })
})

describe('runCheck', () => {
  it('word limits', () => {
    expect(runCheck({ kind: 'max-words', limit: 3 }, 'a b c')).toEqual({ met: true, reason: '3 words (limit 3)' })
    expect(runCheck({ kind: 'max-words', limit: 3 }, 'a b c d')).toEqual({ met: false, reason: '4 words (limit 3)' })
    expect(runCheck({ kind: 'min-words', limit: 2 }, 'a')).toEqual({ met: false, reason: '1 words (minimum 2)' })
  })

  it('json', () => {
    expect(runCheck({ kind: 'json' }, '```json\n{"a": [1, 2]}\n```').met).toBe(true)
    const bad = runCheck({ kind: 'json' }, '{"a": 1,}')
    expect(bad.met).toBe(false)
    expect(bad.reason).toMatch(/^not valid JSON: /)
  })

  it('includes, case-insensitive unless asked', () => {
    expect(runCheck({ kind: 'includes', text: 'Steel' }, 'stainless steel').met).toBe(true)
    expect(runCheck({ kind: 'includes', text: 'Steel', caseSensitive: true }, 'stainless steel')).toEqual({
      met: false,
      reason: 'does not contain "Steel"',
    })
  })

  it('regex, with mustMatch false for a forbidden pattern, and stateless with the g flag', () => {
    expect(runCheck({ kind: 'regex', pattern: 'done\\.$' }, 'all done.')).toEqual({
      met: true,
      reason: 'matches /done\\.$/',
    })
    expect(runCheck({ kind: 'regex', pattern: 'summer', flags: 'i', mustMatch: false }, 'Summer ends').met).toBe(false)
    expect(runCheck({ kind: 'regex', pattern: 'summer', flags: 'i', mustMatch: false }, 'Autumn').met).toBe(true)
    const g = { kind: 'regex', pattern: 'a', flags: 'g' } as const
    expect([runCheck(g, 'a'), runCheck(g, 'a'), runCheck(g, 'a')].map((r) => r.met)).toEqual([true, true, true])
  })
})
