/**
 * vitest-seqk/cells: the cells of an eval without `seqEval`, for tests and scripts that run one
 * cell themselves with `runCell`. `resolveOptions` checks `seqEval` options exactly as `seqEval`
 * does and `planCells` lists the cells it would declare; `isPromiseLike` is the loop's test for an
 * extension point's answer that must be awaited.
 *
 * @example
 * import { runCell } from 'vitest-seqk'
 * import { planCells, resolveOptions } from 'vitest-seqk/cells'
 * const [cell] = planCells('mine', resolveOptions('mine', { tasks, actors, verifier, budget: 5, modes }))
 * const result = await runCell({ ...cell!, runId: 'local' })
 */
export { planCells, type CellPlan } from './seq-eval.js'
export { resolveOptions, type ResolvedOptions } from './options.js'
export { isPromiseLike } from '../core/awaitable.js'
