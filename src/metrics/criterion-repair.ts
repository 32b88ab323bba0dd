/** One trajectory's attempts in order, each a map from criterion id to whether it was met. */
export type CriteriaAttempts = readonly Readonly<Record<string, boolean>>[]

/** Repair and breakage of rubric criteria across revisions, summed over trajectories. */
export interface CriterionRepair {
  /** Criteria failed in attempt 1, summed over trajectories with >= 2 attempts. */
  failedFirst: number
  /** Of those, met in the best later attempt (most criteria met; ties go to the latest). */
  repaired: number
  /** repaired / failedFirst; NaN when failedFirst = 0. */
  repairRate: number
  /** (criterion, trajectory) pairs met in some attempt before the last one. */
  passedEarlier: number
  /** Of those, not met in the final attempt ("fixed one thing, broke another"). */
  broken: number
  /** broken / passedEarlier; NaN when passedEarlier = 0. */
  brokenRate: number
}

/**
 * Criterion repair under feedback (paper section 5.3.1, table 5: on DKR a rubric-aware critic repairs
 * 73.8% of the criteria failed first vs 36.8% rubric-blind and 36.5% for independent retries).
 *
 * Repair compares attempt 1 with the *best* later attempt (the paper's definition), not the last
 * one: that keeps it comparable with independent retries, where "last" means nothing, and credits a
 * repair even if a later attempt regressed. Among equally good attempts the latest wins, so the
 * choice is deterministic. Breakage looks at the final attempt instead, since that is the one the
 * trajectory ends with.
 *
 * Trajectories with fewer than 2 attempts have no revision and are skipped. The criteria of a
 * trajectory are the union of the ids seen in any of its attempts; an id missing from an attempt
 * counts as not met there (a grader that dropped a criterion did not confirm it).
 *
 * @example
 * criterionRepair([[{ a: false, b: true }, { a: true, b: false }]])
 * // => { failedFirst: 1, repaired: 1, repairRate: 1, passedEarlier: 1, broken: 1, brokenRate: 1 }
 */
export function criterionRepair(trajectories: readonly CriteriaAttempts[]): CriterionRepair {
  let failedFirst = 0
  let repaired = 0
  let passedEarlier = 0
  let broken = 0
  for (const attempts of trajectories) {
    const first = attempts[0]
    const last = attempts[attempts.length - 1]
    if (attempts.length < 2 || first === undefined || last === undefined) continue
    const criteria = new Set<string>()
    for (const attempt of attempts) for (const id of Object.keys(attempt)) criteria.add(id)
    const met = (attempt: Readonly<Record<string, boolean>>, id: string): boolean =>
      Object.hasOwn(attempt, id) && attempt[id] === true

    let best = attempts[1] ?? last
    let bestMet = -1
    for (const attempt of attempts.slice(1)) {
      let count = 0
      for (const id of criteria) if (met(attempt, id)) count += 1
      // `>=` so that a later attempt wins a tie.
      if (count >= bestMet) {
        best = attempt
        bestMet = count
      }
    }

    for (const id of criteria) {
      if (!met(first, id)) {
        failedFirst += 1
        if (met(best, id)) repaired += 1
      }
      if (attempts.slice(0, -1).some((attempt) => met(attempt, id))) {
        passedEarlier += 1
        if (!met(last, id)) broken += 1
      }
    }
  }
  return {
    failedFirst,
    repaired,
    repairRate: failedFirst === 0 ? Number.NaN : repaired / failedFirst,
    passedEarlier,
    broken,
    brokenRate: passedEarlier === 0 ? Number.NaN : broken / passedEarlier,
  }
}
