import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { errorAdvice, FAILURE_FIXES, FAILURE_KINDS, type FailureKind } from './failure-kind.js'

const kinds = fc.array(fc.option(fc.constantFrom(...FAILURE_KINDS), { nil: undefined }), {
  minLength: 1,
  maxLength: 30,
})

describe('errorAdvice', () => {
  it("gives the most common kind's fix, counts every kind when there are several, and suggests maxErrorRate only where tolerating is a fix (seeded property)", () => {
    fc.assert(
      fc.property(kinds, fc.boolean(), (list, measured) => {
        const counts = new Map<FailureKind, number>()
        for (const k of list) counts.set(k ?? 'other', (counts.get(k ?? 'other') ?? 0) + 1)
        const most = Math.max(...counts.values())
        // Ties go to the kind a person would check first.
        const top = FAILURE_KINDS.find((k) => counts.get(k) === most)!
        const advice = errorAdvice(list, measured)
        // No filler: a kind with no fix to name (other) says none.
        if (FAILURE_FIXES[top].fix === '') expect(advice).not.toContain('Fix (')
        else expect(advice).toContain(`Fix (${FAILURE_FIXES[top].label}): ${FAILURE_FIXES[top].fix}`)
        expect(advice.includes('maxErrorRate')).toBe(FAILURE_FIXES[top].tolerable && measured)
        if (counts.size === 1) expect(advice).not.toContain('By kind')
        else {
          const told = [...advice.matchAll(/(\d+) ([a-z ]+?)(?=[,.])/g)].map((m) => Number(m[1]))
          expect(told.reduce((a, b) => a + b, 0)).toBe(list.length)
          expect(told).toHaveLength(counts.size)
        }
        if (advice !== '') expect(advice.endsWith('.')).toBe(true)
      }),
      { seed: 28, numRuns: 300 },
    )
  })

  it('the causes a person fixes by hand (key, URL, quota, time) never suggest tolerating errors', () => {
    for (const kind of ['authentication', 'connection', 'quota', 'timeout'] as const) {
      expect(errorAdvice([kind, kind], true), kind).not.toMatch(/maxErrorRate/)
    }
    expect(errorAdvice(['server'], true)).toMatch(/raise maxErrorRate in the cell's expect/)
    expect(errorAdvice(['model-output'], true)).toMatch(
      /check the baseURL; a few such errors are noise: raise maxErrorRate/,
    )
    // A cell that measured nothing is not helped by tolerating its errors.
    expect(errorAdvice(['server'], false)).not.toMatch(/maxErrorRate/)
    expect(errorAdvice([], true)).toBe('')
    // A crash of our own (a verifier's): the error says it all, no "Fix (other): see the error above."
    expect(errorAdvice([undefined, 'other'], true)).toBe('')
    expect(errorAdvice(['other', 'other', 'server'], true)).toBe('By kind: 2 other, 1 server.')
  })
})
