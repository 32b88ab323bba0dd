/**
 * Not only "can it" but "does it, every time", across actors: per benchmark and feedback mode,
 * each actor's four numbers (a single try, coverage at the largest k run, pass^K, and Seq@K under
 * the run's budget), the actors ranked by each reliability metric next to their ranks by Seq@K,
 * and the pairs where the actor better at K is worse at the single try (with the tasks where it is).
 * Every value is read from the cells through the metric registry (`readMetric`), never recomputed.
 */
import type { CellSummary } from '../core/schemas.js'
import { competitionRanks } from '../metrics/ranks.js'
import { METRICS } from '../metrics/registry.js'
import { ordinal, percent } from '../metrics/format.js'
import { readMetric } from '../protocol/cell-metrics.js'
import { fourNumbers, singleTryLabel, type FourNumbers } from '../protocol/four-numbers.js'
import type { MetricRanking, ReliabilityRow, ReliabilitySection, SingleShotReversal } from './report-schema.js'

const byCodeUnits = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0)

/** A cell's metric at `at` (k, or τ for Cover@τ), null when it has none or the cell is missing. */
function valueOf(cell: CellSummary | undefined, id: keyof typeof METRICS, at: number): number | null {
  return cell ? readMetric(cell, id, at).value : null
}

/**
 * Ranks actors by `scores` next to their ranks by Seq@K, over the actors that have both.
 *
 * @example
 * rankAgainstSeq('pass^5', new Map([['a', 0.1], ['b', 0.3]]), new Map([['a', 0.9], ['b', 0.8]]))
 * // => { differsFromSeq: true, reversals: [{ metricAbove: 'b', seqAbove: 'a' }], … }
 */
export function rankAgainstSeq(
  metric: string,
  scores: ReadonlyMap<string, number | null>,
  seq: ReadonlyMap<string, number | null>,
): MetricRanking {
  const both = [...scores.keys()].filter((id) => scores.get(id) !== null && typeof seq.get(id) === 'number')
  const ranks = competitionRanks(new Map(both.map((id) => [id, scores.get(id) as number])))
  const seqRanks = competitionRanks(new Map(both.map((id) => [id, seq.get(id) as number])))
  const order = [...both].sort(
    (x, y) => ranks.get(x)! - ranks.get(y)! || seqRanks.get(x)! - seqRanks.get(y)! || byCodeUnits(x, y),
  )
  const reversals: MetricRanking['reversals'] = []
  for (const a of order)
    for (const b of order)
      if (ranks.get(a)! < ranks.get(b)! && seqRanks.get(b)! < seqRanks.get(a)!)
        reversals.push({ metricAbove: a, seqAbove: b })
  return {
    metric,
    order,
    ranks: order.map((actorId) => ({ actorId, rank: ranks.get(actorId)!, seqRank: seqRanks.get(actorId)! })),
    differsFromSeq: order.some((id) => ranks.get(id) !== seqRanks.get(id)),
    reversals,
  }
}

/** Per task, a cell's value of a registry metric at k (tasks with no measured value left out). */
function perTask(cell: CellSummary, id: 'passAt' | 'seqAt', k: number): Map<string, number> {
  const metric = METRICS[id]
  const out = new Map<string, number>()
  for (const row of cell.perTask) {
    const v = metric.taskValue(row, k, cell.budget)
    if (Number.isFinite(v)) out.set(row.taskId, v)
  }
  return out
}

/**
 * The pairs whose order at K (by `atK`) is the reverse of their order at Pass@1, with the tasks
 * where the actor better at K has the lower Pass@1 and the higher rate at K, and the reverse.
 */
function singleShotReversals(
  against: string,
  atK: ReadonlyMap<string, number | null>,
  pass1: ReadonlyMap<string, number | null>,
  taskAtK: (actorId: string) => Map<string, number>,
  taskPass1: (actorId: string) => Map<string, number>,
): SingleShotReversal[] {
  const ranking = rankAgainstSeq('Pass@1', pass1, atK)
  return ranking.reversals.map(({ metricAbove: betterAtOne, seqAbove: betterAtK }) => {
    const [oneA, oneB, kA, kB] = [
      taskPass1(betterAtK),
      taskPass1(betterAtOne),
      taskAtK(betterAtK),
      taskAtK(betterAtOne),
    ]
    const tasks: string[] = []
    const reverseTasks: string[] = []
    for (const [taskId, a1] of oneA) {
      const [b1, ak, bk] = [oneB.get(taskId), kA.get(taskId), kB.get(taskId)]
      if (b1 === undefined || ak === undefined || bk === undefined) continue
      if (a1 < b1 && ak > bk) tasks.push(taskId)
      else if (a1 > b1 && ak < bk) reverseTasks.push(taskId)
    }
    return { against, betterAtK, betterAtOne, tasks: tasks.sort(), reverseTasks: reverseTasks.sort() }
  })
}

const FEW = 4
const names = (ids: readonly string[]): string =>
  ids.length <= FEW ? ids.join(', ') : `${ids.slice(0, FEW).join(', ')} and ${ids.length - FEW} more`

/**
 * The sentence for a ranking that differs from Seq@K's: each actor that moved, from its place by
 * this metric to its Seq@K place (the direction of the table's "ranking changes from Pass@K to Seq@K").
 */
function rankingNote(mode: string, K: number, r: MetricRanking): string {
  const moves = r.ranks
    .filter((x) => x.rank !== x.seqRank)
    .map((x) => `${x.actorId} ${ordinal(x.rank)} → ${ordinal(x.seqRank)}`)
  return `${mode}: the ranking changes from ${r.metric} to Seq@${K}: ${moves.join(', ')}`
}

function singleShotNote(mode: string, s: SingleShotReversal): string {
  const where =
    s.tasks.length === 0
      ? ''
      : `; on ${s.tasks.length === 1 ? 'task' : 'tasks'} ${names(s.tasks)} its Pass@1 is lower and its ${s.against} higher`
  const reverse = s.reverseTasks.length === 0 ? '' : ` (the reverse on ${names(s.reverseTasks)})`
  return `${mode}: ${s.betterAtK} is above ${s.betterAtOne} by ${s.against} but below it by Pass@1, the single try${where}${reverse}`
}

/**
 * The reliability view of one benchmark: one section per feedback mode, over the actors with a
 * cell in that mode. The single try, Pass@K and pass^K are the report's own four numbers
 * (`fourNumbers`): an actor's independent cell gives them; without one its single try is Seq@1 of
 * a sequential cell (the same first attempt, before any feedback), labelled so, and its Pass@K and
 * pass^K are unknown. Unknown is null, never 0.
 *
 * @example
 * reliabilitySections('fixtures', independentByActor, modes)[0]?.notes
 * // => ['verifier: the ranking changes from pass^5 to Seq@5: simulated:reviser 3rd → 1st, …']
 */
export function reliabilitySections(
  benchmark: string,
  independent: ReadonlyMap<string, CellSummary>,
  modes: ReadonlyMap<string, ReadonlyMap<string, CellSummary>>,
): ReliabilitySection[] {
  const passK = [...independent.values()][0]?.budget ?? null
  const all = [...independent.values(), ...[...modes.values()].flatMap((m) => [...m.values()])]
  const four = new Map(fourNumbers(all).map((f) => [f.actorId, f]))
  const byId = new Map(all.map((c) => [c.cellId, c]))
  /** Per task, the single try's values from the cell it came from. */
  const onePerTask = (id: string): Map<string, number> => {
    const single = four.get(id)?.singleTry
    const cell = single ? byId.get(single.cellId) : undefined
    return cell && single ? perTask(cell, single.source === 'Pass@1' ? 'passAt' : 'seqAt', 1) : new Map()
  }
  return [...modes].map(([mode, cells]) => {
    const K = [...cells.values()][0]?.budget ?? 0
    const actors = [...cells.keys()].sort(byCodeUnits)
    const rows: ReliabilityRow[] = actors.map((actorId) => {
      const f: FourNumbers | undefined = four.get(actorId)
      const cell = cells.get(actorId)!
      const single = f?.singleTry ?? null
      return {
        actorId,
        singleTry: {
          label: singleTryLabel(single),
          value: single?.value ?? null,
          source: single?.source ?? null,
          cellId: single?.cellId ?? null,
        },
        passAtK: f?.passAtK?.value ?? null,
        passHatK: f?.passHatK?.value ?? null,
        gPassK: (independent.get(actorId)?.gPass ?? []).map((g) => ({ tau: g.tau, value: g.atK.point })),
        seqAtK: valueOf(cell, 'seqAt', K),
        seqHatK: valueOf(cell, 'seqHat', K),
        coverAt1: valueOf(cell, 'coverAt', 1),
      }
    })
    const column = (read: (r: ReliabilityRow) => number | null) => new Map(rows.map((r) => [r.actorId, read(r)]))
    const seq = column((r) => r.seqAtK)
    const pass1 = column((r) => r.singleTry.value)
    const rankings = [
      rankAgainstSeq(
        METRICS.coverAt.label(1),
        column((r) => r.coverAt1),
        seq,
      ),
      rankAgainstSeq(
        METRICS.seqHat.label(K),
        column((r) => r.seqHatK),
        seq,
      ),
      ...(rows.some((r) => r.singleTry.value !== null) ? [rankAgainstSeq(METRICS.passAt.label(1), pass1, seq)] : []),
      ...(passK === null
        ? []
        : [
            rankAgainstSeq(
              METRICS.passAt.label(passK),
              column((r) => r.passAtK),
              seq,
            ),
            rankAgainstSeq(
              METRICS.passHat.label(passK),
              column((r) => r.passHatK),
              seq,
            ),
          ]),
    ]
    const singleShot = [
      ...singleShotReversals(
        METRICS.seqAt.label(K),
        seq,
        pass1,
        (id) => perTask(cells.get(id)!, 'seqAt', K),
        onePerTask,
      ),
      ...(passK === null
        ? []
        : [
            ...singleShotReversals(
              METRICS.passAt.label(passK),
              column((r) => r.passAtK),
              pass1,
              (id) => {
                const ind = independent.get(id)
                return ind ? perTask(ind, 'passAt', passK) : new Map<string, number>()
              },
              onePerTask,
            ),
          ]),
    ]
    const notes = [
      ...rankings.filter((r) => r.differsFromSeq).map((r) => rankingNote(mode, K, r)),
      ...singleShot.map((s) => singleShotNote(mode, s)),
    ]
    return { benchmark, mode, k: K, passK, rows, rankings, singleShot, notes }
  })
}

/** A rate as the reliability table prints it (unknown: an em dash, never 0). */
export function reliabilityCell(value: number | null): string {
  return value === null ? '—' : percent(value)
}
