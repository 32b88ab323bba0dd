/**
 * The model-selection experiment (paper section 5.1.1, Figure 2, Table 2): a practitioner picks an
 * actor on n calibration tasks, scored under Pass@K or under a short Seq@k, then deploys it with
 * feedback on new tasks, where it is scored by Seq@K. Selection loss is how far the pick's held-out
 * Seq@K falls below the best actor's; calibration cost is what scoring every candidate on the
 * calibration tasks costs.
 *
 * The procedure, fixed and seeded so a report can be recomputed:
 * 1. Tasks measured for every candidate are sorted by id and shuffled with a PRNG seeded from the
 *    seed; the first ⌈N/2⌉ form group A, the rest group B. The groups stay fixed.
 * 2. For each direction (calibrate on A, score on B; then the reverse) and each n = 1..min(20,
 *    |A|, |B|), `draws` times: draw n calibration tasks without replacement, pick the actor with the
 *    best mean calibration score under each protocol (exact ties broken uniformly at random), and
 *    score the pick by its Seq@K over the whole other group.
 * 3. Each direction's means over draws are combined weighted by the size of its scored group.
 * 4. Intervals: a percentile bootstrap over tasks, resampling each group with replacement (so
 *    groups keep their sizes) and repeating steps 2–3 on every resample.
 * Uniformly random choice (no calibration, no cost) is the baseline.
 */
import type { CellSummary } from '../core/schemas.js'
import { createRng, seedFrom, type Rng } from '../metrics/index.js'
import { quantile } from '../metrics/bootstrap.js'
import {
  AnalysisInputError,
  taskPassAt,
  taskSolvedBy,
  TruncationRefusedError,
  truncationProblem,
} from './cell-scores.js'
import { ComparabilityError, type ComparabilityProblem } from './comparability.js'
import { sameRate } from '../metrics/ranks.js'
import type { ProtocolSelection, Selection } from './report-schema.js'

const byCodeUnits = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0)

/** Per-task, per-actor scores and costs: everything the experiment needs, taken out of the cells. */
export interface SelectionTable {
  benchmark: string
  mode: string
  actors: string[]
  tasks: string[]
  /** K of the Pass@K calibration. */
  passK: number
  /** k of the Seq@k calibration. */
  calibrationK: number
  /** K of the held-out deployment score Seq@K. */
  deployK: number
  /** `passScore[task][actor]`: Pass@K of that actor on that task. */
  passScore: number[][]
  /** `seqScore[task][actor]`: Seq@k (calibration depth). */
  seqScore: number[][]
  /** `heldout[task][actor]`: Seq@K (deployment). */
  heldout: number[][]
  /** Per-task cost of the Pass@K calibration (independent `costAtK[K-1]`), null when unpriced. */
  passCost: (number | null)[][]
  /** Per-task cost of the Seq@k calibration (the mode's `costAtK[k-1]`), null when unpriced. */
  seqCost: (number | null)[][]
  excludedTasks: { taskId: string; reason: string }[]
  notes: string[]
}

/** What the model-selection table is built from: one benchmark's independent and sequential cells. */
export interface SelectionTableInput {
  benchmark: string
  mode: string
  /** The benchmark's independent cells (one per actor). */
  independent: readonly CellSummary[]
  /** The mode's cells (one per actor). */
  sequential: readonly CellSummary[]
  /** Seq@k calibration depth (default min(3, K)). */
  k?: number
}

/**
 * Builds the per-task score table from a benchmark's independent cells and one mode's cells.
 * Candidates are the actors with both; tasks are those measured (at least one non-errored repeat)
 * for every candidate in both cells, the others listed in `excludedTasks`.
 *
 * @throws TruncationRefusedError when k < K and a mode cell told the actor its budget.
 * @throws AnalysisInputError when k is outside 1..K, or fewer than 2 actors or 2 tasks remain.
 * @throws ComparabilityError when the independent and mode cells were measured on different tasks.
 * @example
 * const table = selectionTable({ benchmark: 'b', mode: 'verifier', independent, sequential, k: 3 })
 */
export function selectionTable(input: SelectionTableInput): SelectionTable {
  const { benchmark, mode } = input
  const first = input.sequential[0]
  if (first === undefined) throw new AnalysisInputError(`${benchmark}: no ${mode} cells to deploy with`)
  const deployK = first.budget
  const k = input.k ?? Math.min(3, deployK)
  if (!Number.isInteger(k) || k < 1 || k > deployK)
    throw new AnalysisInputError(
      `${benchmark} · ${mode}: k must be an integer in 1..${deployK} (the budget) (got ${String(k)})`,
    )
  for (const cell of input.sequential) {
    const problem = truncationProblem(cell, k)
    if (problem !== null)
      throw new TruncationRefusedError(`refused: model selection with Seq@${k} calibration on ${benchmark}: ${problem}`)
  }
  const independentBy = new Map(input.independent.map((c) => [c.actorId, c]))
  const sequentialBy = new Map(input.sequential.map((c) => [c.actorId, c]))
  const notes: string[] = []
  const actors = [...sequentialBy.keys()].filter((id) => independentBy.has(id)).sort(byCodeUnits)
  for (const id of [...new Set([...independentBy.keys(), ...sequentialBy.keys()])].sort(byCodeUnits)) {
    if (!actors.includes(id))
      notes.push(`${id} left out: it has no ${independentBy.has(id) ? mode : 'independent'} cell`)
  }
  if (actors.length < 2)
    throw new AnalysisInputError(
      `${benchmark} · ${mode}: model selection needs at least 2 actors with both an independent and a ${mode} cell (found ${actors.length})`,
    )
  const passK = (independentBy.get(actors[0] as string) as CellSummary).budget

  // Calibrating on one task set and deploying on another would not be this experiment.
  const problems: ComparabilityProblem[] = []
  const ind0 = independentBy.get(actors[0] as string) as CellSummary
  if (ind0.protocol.benchmark.contentHash !== first.protocol.benchmark.contentHash) {
    problems.push({
      benchmark,
      mode,
      kind: 'protocol',
      cells: [ind0.cellId, first.cellId],
      fields: ['benchmark.contentHash'],
      message: `${benchmark}: the independent cell "${ind0.cellId}" and the ${mode} cell "${first.cellId}" were measured on different tasks (benchmark.contentHash differs)`,
    })
  }
  const hashes = new Map<string, { hash: string; cell: string }>()
  const perTask = new Map<
    string,
    Map<string, { ind?: CellSummary['perTask'][number]; seq?: CellSummary['perTask'][number] }>
  >()
  for (const id of actors) {
    for (const [side, cell] of [
      ['ind', independentBy.get(id)],
      ['seq', sequentialBy.get(id)],
    ] as const) {
      for (const task of (cell as CellSummary).perTask) {
        if (task.contentHash !== undefined) {
          const seen = hashes.get(task.taskId)
          if (seen === undefined)
            hashes.set(task.taskId, { hash: task.contentHash, cell: (cell as CellSummary).cellId })
          else if (seen.hash !== task.contentHash)
            problems.push({
              benchmark,
              mode,
              kind: 'protocol',
              cells: [seen.cell, (cell as CellSummary).cellId],
              fields: [`perTask[${task.taskId}].contentHash`],
              message: `${benchmark}: task ${task.taskId} has different content in "${seen.cell}" and "${(cell as CellSummary).cellId}"`,
            })
        }
        let row = perTask.get(task.taskId)
        if (row === undefined) perTask.set(task.taskId, (row = new Map()))
        const entry = row.get(id) ?? {}
        entry[side] = task
        row.set(id, entry)
      }
    }
  }
  if (problems.length > 0) throw new ComparabilityError(problems)

  const table: SelectionTable = {
    benchmark,
    mode,
    actors,
    tasks: [],
    passK,
    calibrationK: k,
    deployK,
    passScore: [],
    seqScore: [],
    heldout: [],
    passCost: [],
    seqCost: [],
    excludedTasks: [],
    notes,
  }
  for (const taskId of [...perTask.keys()].sort(byCodeUnits)) {
    const row = perTask.get(taskId) as Map<
      string,
      { ind?: CellSummary['perTask'][number]; seq?: CellSummary['perTask'][number] }
    >
    const scores = actors.map((id) => {
      const entry = row.get(id)
      const pass = entry?.ind ? taskPassAt(entry.ind, passK) : null
      const seq = entry?.seq ? taskSolvedBy(entry.seq, k) : null
      const held = entry?.seq ? taskSolvedBy(entry.seq, deployK) : null
      return { id, entry, pass, seq, held }
    })
    const missing = scores.find((s) => s.pass === null || s.seq === null || s.held === null)
    if (missing) {
      const where =
        missing.entry?.ind === undefined || missing.entry.seq === undefined
          ? 'is missing from'
          : 'has no measured repeat in'
      table.excludedTasks.push({ taskId, reason: `${where} a cell of ${missing.id}` })
      continue
    }
    table.tasks.push(taskId)
    table.passScore.push(scores.map((s) => s.pass as number))
    table.seqScore.push(scores.map((s) => s.seq as number))
    table.heldout.push(scores.map((s) => s.held as number))
    table.passCost.push(scores.map((s) => s.entry?.ind?.costAtK[passK - 1] ?? null))
    table.seqCost.push(scores.map((s) => s.entry?.seq?.costAtK[k - 1] ?? null))
  }
  if (table.tasks.length < 2)
    throw new AnalysisInputError(
      `${benchmark} · ${mode}: model selection needs at least 2 tasks measured for every actor (found ${table.tasks.length})`,
    )
  return table
}

/**
 * The two fixed task groups: ids sorted, shuffled with a PRNG seeded from `seed` (Fisher–Yates),
 * the first ⌈N/2⌉ in A and the rest in B; each group returned sorted. The same ids and seed always
 * give the same groups, whatever order the ids come in.
 *
 * @example
 * splitTaskGroups(['t1', 't2', 't3'], 1) // => { a: [two ids], b: [one id] }
 */
export function splitTaskGroups(taskIds: readonly string[], seed: number): { a: string[]; b: string[] } {
  const ids = [...new Set(taskIds)].sort(byCodeUnits)
  const rng = createRng(seedFrom('seqk-select/groups', seed))
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1))
    ;[ids[i], ids[j]] = [ids[j] as string, ids[i] as string]
  }
  const half = Math.ceil(ids.length / 2)
  return { a: ids.slice(0, half).sort(byCodeUnits), b: ids.slice(half).sort(byCodeUnits) }
}

/** The options of the model-selection experiment: draws, seed, resamples, level and the largest calibration size. */
export interface ModelSelectionOptions {
  /** Calibration draws per size n and direction (default 200). */
  draws?: number
  /** Seed of the groups, the draws, the tie-breaks and the bootstrap (default 1). */
  seed?: number
  /** Bootstrap resamples over tasks (default 200; 0 for no intervals). */
  resamples?: number
  /** Confidence level (default 0.95). */
  level?: number
  /** Largest calibration size (default 20, and never more than the smaller group). */
  maxN?: number
}

/** Flat, typed copies of the table for the hot loop (a bootstrap repeats the experiment hundreds of times). */
interface Matrices {
  actors: number
  pass: Float64Array
  seq: Float64Array
  held: Float64Array
  passCost: Float64Array | null
  seqCost: Float64Array | null
}

function flat(rows: readonly (readonly (number | null)[])[], actors: number): Float64Array | null {
  const out = new Float64Array(rows.length * actors)
  for (const [t, row] of rows.entries()) {
    for (let a = 0; a < actors; a++) {
      const v = row[a]
      if (v === null || v === undefined) return null
      out[t * actors + a] = v
    }
  }
  return out
}

/** Means over draws, weighted over directions, for each n; plus the random baseline. */
interface Outcome {
  lossPass: number[]
  lossSeq: number[]
  heldPass: number[]
  heldSeq: number[]
  costPass: number[]
  costSeq: number[]
  picksPass: number[][]
  picksSeq: number[][]
  randomLoss: number
  randomHeld: number
  /** Mean Seq@K of each actor over each group. */
  heldByGroup: [number[], number[]]
}

function argmaxWithTies(sums: Float64Array, rng: Rng): number {
  let best = Number.NEGATIVE_INFINITY
  for (const s of sums) if (s > best) best = s
  // The one tie rule of every ranking (metrics/ranks.ts): sums of the same counts tie.
  let ties = 0
  for (const s of sums) if (sameRate(s, best)) ties++
  let chosen = Math.floor(rng() * ties)
  for (let a = 0; a < sums.length; a++) {
    if (sameRate(sums[a] as number, best)) {
      if (chosen === 0) return a
      chosen--
    }
  }
  return sums.length - 1
}

function experiment(m: Matrices, groups: [number[], number[]], maxN: number, draws: number, rng: Rng): Outcome {
  const A = m.actors
  const zeros = (): number[] => new Array<number>(maxN).fill(0)
  const out: Outcome = {
    lossPass: zeros(),
    lossSeq: zeros(),
    heldPass: zeros(),
    heldSeq: zeros(),
    costPass: zeros(),
    costSeq: zeros(),
    picksPass: Array.from({ length: maxN }, () => new Array<number>(A).fill(0)),
    picksSeq: Array.from({ length: maxN }, () => new Array<number>(A).fill(0)),
    randomLoss: 0,
    randomHeld: 0,
    heldByGroup: [[], []],
  }
  const groupMeans = groups.map((g) => {
    const means = new Array<number>(A).fill(0)
    for (const t of g) for (let a = 0; a < A; a++) means[a] = (means[a] as number) + (m.held[t * A + a] as number)
    return means.map((s) => s / g.length)
  }) as [number[], number[]]
  out.heldByGroup = groupMeans
  const totalWeight = groups[0].length + groups[1].length
  const sumsPass = new Float64Array(A)
  const sumsSeq = new Float64Array(A)
  for (const [cal, score] of [
    [0, 1],
    [1, 0],
  ] as const) {
    const calibration = groups[cal]
    const held = groupMeans[score]
    // Each direction counts in proportion to the tasks it is scored on (paper: "weighted by group size").
    const weight = groups[score].length / totalWeight
    const best = Math.max(...held)
    out.randomLoss += (weight * held.reduce((s, h) => s + (best - h), 0)) / A
    out.randomHeld += (weight * held.reduce((s, h) => s + h, 0)) / A
    const pool = [...calibration]
    for (let n = 1; n <= maxN; n++) {
      let lossP = 0,
        lossS = 0,
        heldP = 0,
        heldS = 0,
        costP = 0,
        costS = 0
      // Integer counts, weighted once per direction: summing weight/draws per draw drifts off 1.
      const countP = new Array<number>(A).fill(0)
      const countS = new Array<number>(A).fill(0)
      for (let d = 0; d < draws; d++) {
        sumsPass.fill(0)
        sumsSeq.fill(0)
        // Partial Fisher–Yates: the first n slots of `pool` become a uniform draw without replacement.
        for (let i = 0; i < n; i++) {
          const j = i + Math.floor(rng() * (pool.length - i))
          const t = pool[j] as number
          pool[j] = pool[i] as number
          pool[i] = t
          for (let a = 0; a < A; a++) {
            sumsPass[a] = (sumsPass[a] as number) + (m.pass[t * A + a] as number)
            sumsSeq[a] = (sumsSeq[a] as number) + (m.seq[t * A + a] as number)
            if (m.passCost) costP += m.passCost[t * A + a] as number
            if (m.seqCost) costS += m.seqCost[t * A + a] as number
          }
        }
        const pickP = argmaxWithTies(sumsPass, rng)
        const pickS = argmaxWithTies(sumsSeq, rng)
        lossP += best - (held[pickP] as number)
        lossS += best - (held[pickS] as number)
        heldP += held[pickP] as number
        heldS += held[pickS] as number
        countP[pickP] = (countP[pickP] as number) + 1
        countS[pickS] = (countS[pickS] as number) + 1
      }
      const i = n - 1
      const picksP = out.picksPass[i] as number[]
      const picksS = out.picksSeq[i] as number[]
      for (let a = 0; a < A; a++) {
        picksP[a] = (picksP[a] as number) + (weight * (countP[a] as number)) / draws
        picksS[a] = (picksS[a] as number) + (weight * (countS[a] as number)) / draws
      }
      out.lossPass[i] = (out.lossPass[i] as number) + (weight * lossP) / draws
      out.lossSeq[i] = (out.lossSeq[i] as number) + (weight * lossS) / draws
      out.heldPass[i] = (out.heldPass[i] as number) + (weight * heldP) / draws
      out.heldSeq[i] = (out.heldSeq[i] as number) + (weight * heldS) / draws
      out.costPass[i] = (out.costPass[i] as number) + (weight * costP) / draws
      out.costSeq[i] = (out.costSeq[i] as number) + (weight * costS) / draws
    }
  }
  return out
}

function interval(
  point: number,
  resampled: readonly number[],
  level: number,
  resamples: number,
  seed: number,
): ProtocolSelection['loss'] {
  const sorted = resampled.filter((v) => Number.isFinite(v)).sort((x, y) => x - y)
  const tail = (1 - level) / 2
  const finite = (v: number): number | null => (Number.isFinite(v) ? v : null)
  return {
    point: finite(point),
    lo: finite(quantile(sorted, tail)),
    hi: finite(quantile(sorted, 1 - tail)),
    level,
    method: 'percentile-bootstrap/1',
    resamples,
    seed,
  }
}

/**
 * Runs the selection experiment on a score table (see the module comment for the procedure).
 *
 * @throws RangeError on draws < 1, resamples < 0, maxN < 1 or a level outside (0, 1).
 * @example
 * const result = modelSelection(selectionTable({ benchmark, mode: 'verifier', independent, sequential, k: 3 }), { draws: 200, seed: 1 })
 * result.sizes[9]?.gain.point // held-out Seq@K gained at n = 10 by calibrating with Seq@3 instead of Pass@K
 */
export function modelSelection(table: SelectionTable, options: ModelSelectionOptions = {}): Selection {
  const draws = options.draws ?? 200
  const seed = options.seed ?? 1
  const resamples = options.resamples ?? 200
  const level = options.level ?? 0.95
  if (!Number.isInteger(draws) || draws < 1)
    throw new RangeError(`draws must be an integer >= 1 (got ${String(draws)})`)
  if (!Number.isInteger(resamples) || resamples < 0)
    throw new RangeError(`resamples must be an integer >= 0 (got ${String(resamples)})`)
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer (got ${String(seed)})`)
  if (!(level > 0 && level < 1)) throw new RangeError(`level must be strictly between 0 and 1 (got ${String(level)})`)
  const groups = splitTaskGroups(table.tasks, seed)
  const index = new Map(table.tasks.map((t, i) => [t, i]))
  const positions: [number[], number[]] = [
    groups.a.map((t) => index.get(t) as number),
    groups.b.map((t) => index.get(t) as number),
  ]
  const requestedN = options.maxN ?? 20
  if (!Number.isInteger(requestedN) || requestedN < 1)
    throw new RangeError(`maxN must be an integer >= 1 (got ${String(options.maxN)})`)
  const maxN = Math.min(requestedN, groups.a.length, groups.b.length)
  const A = table.actors.length
  const m: Matrices = {
    actors: A,
    pass: flat(table.passScore, A) as Float64Array,
    seq: flat(table.seqScore, A) as Float64Array,
    held: flat(table.heldout, A) as Float64Array,
    passCost: flat(table.passCost, A),
    seqCost: flat(table.seqCost, A),
  }
  const stream = (...parts: (string | number)[]): Rng =>
    createRng(seedFrom('seqk-select', seed, table.benchmark, table.mode, ...parts))
  const point = experiment(m, positions, maxN, draws, stream('draws'))

  const boot = {
    lossPass: [] as number[][],
    lossSeq: [] as number[][],
    heldPass: [] as number[][],
    heldSeq: [] as number[][],
    gain: [] as number[][],
    randomLoss: [] as number[],
    randomHeld: [] as number[],
  }
  const resampleRng = stream('bootstrap')
  for (let r = 0; r < resamples; r++) {
    // Stratified: each group is resampled within itself, so both keep their size and role.
    const resampled = positions.map((g) => g.map(() => g[Math.floor(resampleRng() * g.length)] as number)) as [
      number[],
      number[],
    ]
    const o = experiment(m, resampled, maxN, draws, resampleRng)
    boot.lossPass.push(o.lossPass)
    boot.lossSeq.push(o.lossSeq)
    boot.heldPass.push(o.heldPass)
    boot.heldSeq.push(o.heldSeq)
    boot.gain.push(o.heldSeq.map((h, i) => h - (o.heldPass[i] as number)))
    boot.randomLoss.push(o.randomLoss)
    boot.randomHeld.push(o.randomHeld)
  }
  const at = (rows: number[][], i: number): number[] => rows.map((row) => row[i] as number)
  const iv = (p: number, values: number[]): ProtocolSelection['loss'] => interval(p, values, level, resamples, seed)
  const picks = (shares: number[]): Record<string, number> =>
    Object.fromEntries(table.actors.map((id, a) => [id, shares[a] as number]))
  const notes = [...table.notes]
  if (m.passCost === null || m.seqCost === null)
    notes.push('some calibration tasks are unpriced: calibration cost is unknown (null)')
  if (maxN < requestedN) notes.push(`calibration sizes stop at n = ${maxN}: the smaller group has ${maxN} tasks`)
  const toRecord = (means: number[]): Record<string, number> =>
    Object.fromEntries(table.actors.map((id, a) => [id, means[a] as number]))
  return {
    benchmark: table.benchmark,
    mode: table.mode,
    actors: [...table.actors],
    passK: table.passK,
    calibrationK: table.calibrationK,
    deployK: table.deployK,
    draws,
    seed,
    groups,
    excludedTasks: [...table.excludedTasks],
    heldoutByGroup: { a: toRecord(point.heldByGroup[0]), b: toRecord(point.heldByGroup[1]) },
    random: { loss: iv(point.randomLoss, boot.randomLoss), heldout: iv(point.randomHeld, boot.randomHeld) },
    sizes: Array.from({ length: maxN }, (_, i) => ({
      n: i + 1,
      pass: {
        metric: `Pass@${table.passK}`,
        loss: iv(point.lossPass[i] as number, at(boot.lossPass, i)),
        heldout: iv(point.heldPass[i] as number, at(boot.heldPass, i)),
        cost: m.passCost ? (point.costPass[i] as number) : null,
        picks: picks(point.picksPass[i] as number[]),
      },
      seq: {
        metric: `Seq@${table.calibrationK}`,
        loss: iv(point.lossSeq[i] as number, at(boot.lossSeq, i)),
        heldout: iv(point.heldSeq[i] as number, at(boot.heldSeq, i)),
        cost: m.seqCost ? (point.costSeq[i] as number) : null,
        picks: picks(point.picksSeq[i] as number[]),
      },
      gain: iv((point.heldSeq[i] as number) - (point.heldPass[i] as number), at(boot.gain, i)),
    })),
    notes,
  }
}
