// A plain unit test of the user's project, using the public `vitest-seqk/metrics` entry point.
import { describe, expect, it } from 'vitest'
import { passAtK, seqAt } from 'vitest-seqk/metrics'

describe('vitest-seqk/metrics', () => {
  it('computes unbiased Pass@k', () => {
    expect(passAtK(5, 2, 1)).toBeCloseTo(0.4, 12)
    expect(passAtK(5, 0, 3)).toBe(0)
  })

  it('computes Seq@k', () => {
    expect(seqAt([{ taskId: 'a', firstSuccess: [2] }], 1)).toBe(0)
    expect(seqAt([{ taskId: 'a', firstSuccess: [2] }], 2)).toBe(1)
  })
})
