/**
 * The four numbers a self-improving loop needs, one row per actor (pure, read from cell summaries):
 * a single deterministic try (Pass@1 at temperature 0 when the actor ran so, else Pass@1),
 * coverage at the largest k run (Pass@K), pass^K (every one of K tries solves the task), and
 * Seq@K under the run's budget, per feedback mode. A number the run did not measure is null
 * (unknown), never 0.
 */
import type { CellSummary, IntervalJson } from '../core/schemas.js'

/** One of the four numbers: its value, the k it is at, its interval when the cell keeps one, and the cell it came from. */
export interface FourNumber {
  value: number | null
  k: number
  interval: IntervalJson | null
  cellId: string
}

/** An actor's four numbers in one benchmark. */
export interface FourNumbers {
  actorId: string
  /**
   * A single try: Pass@1 of an independent cell (the one at temperature 0 when there is one), else
   * Seq@1 of a sequential cell whose actor was not told its budget (its first attempt sees the same
   * prompt as an independent sample and no feedback yet: the same single try, estimated from the
   * repeats), null when neither measured it. Every output that shows it reads it here and names
   * its source with {@link singleTryLabel}.
   */
  singleTry:
    | (FourNumber & {
        deterministic: boolean
        source: 'Pass@1' | 'Seq@1'
        /** The feedback mode of the sequential cell a Seq@1 came from (null for Pass@1). */
        mode: string | null
      })
    | null
  /** Pass@K of the independent cell: coverage at the largest k run. */
  passAtK: FourNumber | null
  /** pass^K of the independent cell: the chance that all K tries solve a task. */
  passHatK: FourNumber | null
  /** Seq@K of each sequential cell, by feedback mode, under its budget. */
  seqAtK: { mode: string; number: FourNumber }[]
}

const valueAt = (curve: readonly (number | null)[] | null | undefined, k: number): number | null => {
  const v = curve?.[k - 1]
  return typeof v === 'number' && Number.isFinite(v) ? v : null
}

/**
 * The four numbers of each actor among one benchmark's cells, actors in first-seen order.
 *
 * @example
 * fourNumbers(summary.benchmarks[0].cells).map((r) => [r.actorId, r.passHatK?.value])
 * // => [['sim:careful', 0.4], ['sim:quick', null]]
 */
export function fourNumbers(cells: readonly CellSummary[]): FourNumbers[] {
  const actors = [...new Set(cells.map((c) => c.actorId))]
  return actors.map((actorId) => {
    const own = cells.filter((c) => c.actorId === actorId)
    const independent = own.filter((c) => c.protocol.kind === 'independent')
    const sequential = own.filter((c) => c.protocol.kind !== 'independent')
    const atZero = (c: CellSummary) => c.protocol.actor.params.temperature === 0
    // The cell with the most budget, and among those one at temperature 0 when there is one.
    const pick = (list: readonly CellSummary[]) =>
      [...list].sort((a, b) => b.budget - a.budget || Number(atZero(b)) - Number(atZero(a)))[0]
    const ind = pick(independent)
    const deterministic = independent.find(atZero) ?? ind
    // Order-free, so every output that reads these cells (in whatever order) picks the same one:
    // temperature 0 first, then the cell id in code-unit order.
    const firstSeq = sequential
      .filter((c) => !c.protocol.budgetDisclosed && valueAt(c.seqAt, 1) !== null)
      .sort(
        (a, b) => Number(atZero(b)) - Number(atZero(a)) || (a.cellId < b.cellId ? -1 : a.cellId > b.cellId ? 1 : 0),
      )[0]
    const singleTry = deterministic
      ? {
          value: valueAt(deterministic.passAt, 1),
          k: 1,
          interval: deterministic.budget === 1 ? (deterministic.passAtInterval ?? null) : null,
          cellId: deterministic.cellId,
          deterministic: atZero(deterministic),
          source: 'Pass@1' as const,
          mode: null,
        }
      : firstSeq
        ? {
            value: valueAt(firstSeq.seqAt, 1),
            k: 1,
            interval: firstSeq.budget === 1 ? firstSeq.seqAtInterval : null,
            cellId: firstSeq.cellId,
            deterministic: atZero(firstSeq),
            source: 'Seq@1' as const,
            mode: firstSeq.mode,
          }
        : null
    return {
      actorId,
      singleTry,
      passAtK: ind
        ? {
            value: valueAt(ind.passAt, ind.budget),
            k: ind.budget,
            interval: ind.passAtInterval ?? null,
            cellId: ind.cellId,
          }
        : null,
      passHatK: ind
        ? {
            value: valueAt(ind.passHat, ind.budget),
            k: ind.budget,
            interval: ind.reliability?.hatInterval ?? null,
            cellId: ind.cellId,
          }
        : null,
      seqAtK: sequential.map((c) => ({
        mode: c.mode,
        number: { value: valueAt(c.seqAt, c.budget), k: c.budget, interval: c.seqAtInterval, cellId: c.cellId },
      })),
    }
  })
}

/**
 * The words every output names a single try's source with: `Pass@1`, `Pass@1 at temperature 0`,
 * or `Seq@1 (first attempt of <mode>)` when the actor has no independent cell and its sequential
 * cell's first attempt (no feedback yet) is the single try; `a single try` when none was measured.
 *
 * @example
 * singleTryLabel(fourNumbers(cells)[0]!.singleTry) // => 'Seq@1 (first attempt of verifier)'
 */
export function singleTryLabel(single: FourNumbers['singleTry']): string {
  if (!single) return 'a single try'
  const temperature = single.deterministic ? ' at temperature 0' : ''
  return single.source === 'Pass@1' ? `Pass@1${temperature}` : `Seq@1${temperature} (first attempt of ${single.mode})`
}
