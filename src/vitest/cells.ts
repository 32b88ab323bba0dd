/**
 * vitest-seqk/cells: the cells of an eval without `seqEval`, for tests and scripts that run one
 * cell themselves with `runCell`. `resolveOptions` checks `seqEval` options exactly as `seqEval`
 * does and `planCells` lists the cells it would declare; `isPromiseLike` is the loop's test for an
 * extension point's answer that must be awaited. `referencePromptBuilder` is the prompt layout of
 * `protocol: 'seq_k-reference'` (the paper's reference harness), for a cell run by hand.
 *
 * @example
 * import { runCell } from 'vitest-seqk'
 * import { planCells, resolveOptions } from 'vitest-seqk/cells'
 * const [cell] = planCells('mine', resolveOptions('mine', { tasks, actors, verifier, budget: 5, modes }))
 * const result = await runCell({ ...cell!, runId: 'local' })
 */
export { planCells, type CellPlan } from './seq-eval.js'
export { resolveOptions, PROTOCOL_PRESETS, type ResolvedOptions } from './options.js'
export {
  referencePromptBuilder,
  referenceSuffix,
  isLayoutBuilder,
  type LayoutPromptBuilder,
  type PastAttempt,
} from '../protocol/prompt-builders/reference.js'
export { isPromiseLike } from '../core/awaitable.js'
