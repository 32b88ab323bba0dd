/**
 * Seeded simulation of the robustness ratio's promise (seqEval's `perturb`): Fieller's 95%
 * interval for Seq@K reworded over Seq@K original, paired over tasks, covers the population's
 * ratio at least 95% of the time. Tasks are drawn afresh in each replicate (the interval is about
 * tasks like these, not only these), each with a rate at K p ~ Beta(a, b) on the original prompt;
 * a share `sensitive` of tasks keeps only `keep` of it when reworded, so the population's ratio is
 * exactly 1 − sensitive·(1 − keep). Each repeat on the reworded prompt either reuses the original's
 * draw (`coupled`: a rewording only ever loses, as the bundled simulated actors do) or is drawn
 * afresh (a real model's wording noise: tasks flip both ways).
 */
import { createRng, seedFrom, type Rng } from '../src/metrics/index.js'
import { betaDraw } from '../src/metrics/population.js'
import { robustnessRatio, type PairedRates } from '../src/metrics/robustness-ratio.js'

/** One setting of the study. */
export interface RobustnessSetting {
  tasks: number
  repeats: number
  /** Task rates at K on the original prompt: p ~ Beta(a, b). */
  a: number
  b: number
  /** Share of tasks the rewording hurts, and the share of their rate they keep. */
  sensitive: number
  keep: number
  coupled: boolean
}

/** The population's ratio: E[p·m]/E[p] with m independent of p, so E[m]. */
export const trueRatio = (s: RobustnessSetting) => 1 - s.sensitive * (1 - s.keep)

function replicate(rng: Rng, s: RobustnessSetting): PairedRates[] {
  return Array.from({ length: s.tasks }, (_, i) => {
    const p = betaDraw(rng, s.a, s.b)
    const q = rng() < s.sensitive ? p * s.keep : p
    let x = 0
    let y = 0
    for (let r = 0; r < s.repeats; r++) {
      const u = rng()
      x += u < p ? 1 : 0
      y += (s.coupled ? u : rng()) < q ? 1 : 0
    }
    return { taskId: `t${i}`, original: x / s.repeats, perturbed: y / s.repeats }
  })
}

/** Coverage of the 95% interval over `replicates` draws, the share unbounded and undefined, and the mean width. */
export function ratioCoverage(
  s: RobustnessSetting,
  replicates: number,
  seed: number,
): { coverage: number; unbounded: number; undefinedShare: number; meanWidth: number; truth: number } {
  const truth = trueRatio(s)
  let covered = 0
  let unbounded = 0
  let undef = 0
  let width = 0
  for (let b = 0; b < replicates; b++) {
    const rng = createRng(seedFrom(seed, 'robustness', b))
    const r = robustnessRatio(replicate(rng, s))
    if (Number.isNaN(r.point)) {
      // No task passed on the original: no ratio is claimed, so none can miss.
      undef++
      covered++
      continue
    }
    if (!r.bounded) unbounded++
    else width += r.hi - r.lo
    if (r.lo <= truth && truth <= r.hi) covered++
  }
  const bounded = replicates - unbounded - undef
  return {
    coverage: covered / replicates,
    unbounded: unbounded / replicates,
    undefinedShare: undef / replicates,
    meanWidth: bounded > 0 ? width / bounded : NaN,
    truth,
  }
}
