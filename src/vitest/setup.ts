/**
 * Setup file: add `'vitest-seqk/setup'` to `test.setupFiles` to register the matchers
 * `toReachSeqAt(k, min)` and `toReachPassAt(k, min)`.
 */
import { expect } from 'vitest'
import { seqkMatchers } from './matchers.js'

expect.extend(seqkMatchers)

export { seqkMatchers }
