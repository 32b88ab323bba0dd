/**
 * Setup file: add `'vitest-seqk/setup'` to `test.setupFiles` to register the matchers
 * `toReachSeqAt(k, min)` and `toReachPassAt(k, min)`.
 */
import { expect } from 'vitest'
import { seqkMatchers } from './matchers.js'

expect.extend(seqkMatchers)
// seqEval checks for this mark and says once when the setup file is missing.
;(globalThis as Record<symbol, unknown>)[Symbol.for('vitest-seqk.setup')] = true

export { seqkMatchers }
