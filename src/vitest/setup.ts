/**
 * Setup file: add `'vitest-seqk/setup'` to `test.setupFiles` to register the matchers
 * `toReachSeqAt(k, min)` and `toReachPassAt(k, min)`.
 */
import { join } from 'node:path'
import { expect } from 'vitest'
import { seqkMatchers } from './matchers.js'
import { currentRun } from './run-context.js'
import { BATCHES_FILE, useBatchLedger } from '../models/batch/ledger.js'

expect.extend(seqkMatchers)
// Batched models record their batches in the run directory, so a resumed run collects a batch
// that finished while it was down instead of paying for it again.
useBatchLedger(() => join(currentRun().runDir, BATCHES_FILE))
// seqEval checks for this mark and says once when the setup file is missing.
;(globalThis as Record<symbol, unknown>)[Symbol.for('vitest-seqk.setup')] = true

export { seqkMatchers }
