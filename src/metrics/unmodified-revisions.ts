/** How many revisions repeated the previous answer unchanged. `rate` is NaN when there are no revisions. */
export interface UnmodifiedRevisions {
  revisions: number
  unmodified: number
  rate: number
}

/**
 * Counts unmodified revisions: a revision is attempt t >= 2 of a trajectory, and it is unmodified
 * when its answer equals attempt t-1's exactly.
 *
 * A high rate means the actor ignores feedback and resubmits, which the paper (section 5.2) separates
 * from revisions that change the answer but still fail. Comparison is exact string equality on
 * purpose: what counts as "the same answer" (whitespace, code formatting, casing) depends on the
 * task, so normalising is the caller's job.
 *
 * @param trajectories - per trajectory, the normalised answers of its attempts in order.
 * @example
 * unmodifiedRevisions([['a', 'a', 'b'], ['x']])
 * // => { revisions: 2, unmodified: 1, rate: 0.5 }
 */
export function unmodifiedRevisions(trajectories: readonly (readonly string[])[]): UnmodifiedRevisions {
  let revisions = 0
  let unmodified = 0
  for (const answers of trajectories) {
    for (let t = 1; t < answers.length; t++) {
      revisions += 1
      if (answers[t] === answers[t - 1]) unmodified += 1
    }
  }
  return { revisions, unmodified, rate: revisions === 0 ? Number.NaN : unmodified / revisions }
}

/**
 * Counts unmodified revisions from the flags each attempt recorded when it ran (`null` for a first
 * attempt or an independent sample, else whether it repeated the previous answer as the verifier
 * normalises it), so a summary needs no verifier: it is a function of the trajectories.
 *
 * @example
 * countUnmodified([[null, true, false], [null]])
 * // => { revisions: 2, unmodified: 1, rate: 0.5 }
 */
export function countUnmodified(trajectories: readonly (readonly (boolean | null)[])[]): UnmodifiedRevisions {
  let revisions = 0
  let unmodified = 0
  for (const flags of trajectories) {
    for (const flag of flags) {
      if (flag === null) continue
      revisions += 1
      if (flag) unmodified += 1
    }
  }
  return { revisions, unmodified, rate: revisions === 0 ? Number.NaN : unmodified / revisions }
}
