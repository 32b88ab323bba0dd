/**
 * Actors ranked under Pass@k and under Seq@k, and how far apart they are under each (paper
 * section 5.1.2, Table 3): the same Pass@K gap can shrink (AdvancedIF: 33.3 → 6.7 points) or widen
 * (HumanEval Pro: 10.8 → 51.7) once actors revise with feedback.
 */
import { competitionRanks } from '../metrics/ranks.js'
import type { ExcludedActor, Gaps, Ranking } from './report-schema.js'

const byCodeUnits = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0)

// Competition ranks ("1224") moved to metrics/ranks.ts with the one tie rule; re-exported for
// the analysis' public face.
export { competitionRanks }

/**
 * Best–worst gap and mean pairwise gap of a set of scores (paper Table 3). Both are null with
 * fewer than two scores: there is no gap between one actor and itself.
 *
 * @example
 * performanceGaps([0.9, 0.5, 0.7]) // => { bestWorst: 0.4, meanPairwise: (0.4 + 0.2 + 0.2) / 3 } (up to rounding)
 */
export function performanceGaps(scores: readonly number[]): Gaps {
  if (scores.length < 2) return { bestWorst: null, meanPairwise: null }
  let sum = 0
  let pairs = 0
  for (let i = 0; i < scores.length; i++) {
    for (let j = i + 1; j < scores.length; j++) {
      sum += Math.abs((scores[i] as number) - (scores[j] as number))
      pairs++
    }
  }
  return { bestWorst: Math.max(...scores) - Math.min(...scores), meanPairwise: sum / pairs }
}

function difference(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a - b
}

/**
 * Ids ordered best first by `rank`, ties by the other rank, then by id (a stable, readable order).
 * Sorting on ranks, not on rates, keeps the order's ties the ranks' ties.
 */
function order(ids: readonly string[], rank: ReadonlyMap<string, number>, then: ReadonlyMap<string, number>): string[] {
  return [...ids].sort(
    (x, y) =>
      (rank.get(x) as number) - (rank.get(y) as number) ||
      (then.get(x) as number) - (then.get(y) as number) ||
      byCodeUnits(x, y),
  )
}

/** What two rankings of the same actors are compared from: each actor's Pass@K and Seq@K. */
export interface CompareRankingsInput {
  benchmark: string
  mode: string
  k: number
  /** Pass@k per actor; null when undefined for that actor (with the reason in `excluded`). */
  pass: ReadonlyMap<string, number | null>
  /** Seq@k per actor under `mode`. */
  seq: ReadonlyMap<string, number | null>
  /** Actors already known to be left out, and why. */
  excluded?: readonly ExcludedActor[]
}

/**
 * Compares the order of actors under Pass@k with their order under Seq@k for one benchmark and
 * feedback mode: both ranks, rank changes, every reversed pair, and the gaps under each protocol.
 *
 * Only actors with both scores take part; the others are listed in `excluded` with the reason,
 * because ranking an actor on one protocol only would silently change the field per protocol.
 *
 * @example
 * compareRankings({ benchmark: 'b', mode: 'verifier', k: 5,
 *   pass: new Map([['a', 0.99], ['b', 0.97]]), seq: new Map([['a', 0.75], ['b', 0.98]]) })
 * // => reversals [{ passAbove: 'a', seqAbove: 'b' }], gaps.change.bestWorst ≈ 0.21
 */
export function compareRankings(input: CompareRankingsInput): Ranking {
  const excluded: ExcludedActor[] = [...(input.excluded ?? [])]
  const pass = new Map<string, number>()
  const seq = new Map<string, number>()
  const ids = [...new Set([...input.pass.keys(), ...input.seq.keys()])].sort(byCodeUnits)
  for (const id of ids) {
    const p = input.pass.get(id)
    const s = input.seq.get(id)
    if (p === undefined) excluded.push({ actorId: id, reason: `no independent cell, so no Pass@${input.k}` })
    else if (s === undefined) excluded.push({ actorId: id, reason: `no ${input.mode} cell, so no Seq@${input.k}` })
    else if (p === null)
      excluded.push({ actorId: id, reason: `Pass@${input.k} is undefined (fewer than ${input.k} samples per task)` })
    else if (s === null) excluded.push({ actorId: id, reason: `Seq@${input.k} is undefined (no measured trajectory)` })
    else {
      pass.set(id, p)
      seq.set(id, s)
    }
  }
  const kept = [...pass.keys()]
  const passRanks = competitionRanks(pass)
  const seqRanks = competitionRanks(seq)
  const seqOrder = order(kept, seqRanks, passRanks)
  const reversals: Ranking['reversals'] = []
  const passOrder = order(kept, passRanks, seqRanks)
  for (const a of passOrder) {
    for (const b of passOrder) {
      // A pair reverses only when both protocols tell the two apart: a tie is not an order.
      const passSaysA = (passRanks.get(a) as number) < (passRanks.get(b) as number)
      const seqSaysB = (seqRanks.get(b) as number) < (seqRanks.get(a) as number)
      if (passSaysA && seqSaysB) reversals.push({ passAbove: a, seqAbove: b })
    }
  }
  const passGaps = performanceGaps(kept.map((id) => pass.get(id) as number))
  const seqGaps = performanceGaps(kept.map((id) => seq.get(id) as number))
  return {
    benchmark: input.benchmark,
    mode: input.mode,
    k: input.k,
    actors: seqOrder.map((id) => {
      const passRank = passRanks.get(id) as number
      const seqRank = seqRanks.get(id) as number
      return {
        actorId: id,
        pass: pass.get(id) as number,
        seq: seq.get(id) as number,
        passRank,
        seqRank,
        rankChange: passRank - seqRank,
      }
    }),
    passOrder,
    seqOrder,
    gaps: {
      pass: passGaps,
      seq: seqGaps,
      change: {
        bestWorst: difference(seqGaps.bestWorst, passGaps.bestWorst),
        meanPairwise: difference(seqGaps.meanPairwise, passGaps.meanPairwise),
      },
    },
    reversals,
    excluded,
  }
}
