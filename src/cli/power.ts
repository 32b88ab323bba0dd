/**
 * `seqk power`: what the baseline gate can see before a run is paid for. For a planned size
 * (`--tasks 40 --repeats 3 --rate 0.75`) or for the cells of finished runs, a table of drop ×
 * power, the smallest drop caught 80% of the time, and the tasks or repeats a target drop needs.
 * Every number comes from simulating the gate's own decision (src/protocol/gate-power.ts).
 */
import type { CellSummary } from '../core/schemas.js'
import { percent, plural } from '../metrics/format.js'
import {
  ALTERNATIVES,
  ALTERNATIVE_TEXT,
  gatedMetric,
  gatePower,
  metricRate,
  points,
  populationOf,
  powerAnswer,
  SPREAD_TEXT,
  TARGET_POWER,
  type Alternative,
  type AlternativePower,
  type PowerQuestion,
} from '../protocol/gate-power.js'
import type { GateRule } from '../protocol/gate-rule.js'
import { gateMetricOf, type GateMetric } from '../protocol/gate.js'
import { taskTrials } from '../metrics/task-rates.js'
import { headlineMetric } from '../metrics/registry.js'
import type { CommandSpec } from './args.js'

export const powerSpec: CommandSpec = {
  name: 'power',
  usage:
    'seqk power --tasks <n> --rate <0..1> [--repeats <n>] [options]\n       seqk power <run dir or summary.json>... [options]',
  summary:
    'What the baseline gate can see: for a planned run (--tasks, --repeats, --rate) or for the cells of finished runs, the share of simulated runs in which the gate catches a drop of 2–30 points (on every task in proportion, and on a few broken tasks), the smallest drop it catches 80% of the time, and how many tasks or repeats a target drop needs.',
  details: [
    'Each number simulates the gate itself (seqk.gate/2) on pairs of runs: tasks drawn with',
    'success rates around --rate (Beta, spread by --concentration: 1 = mostly easy or impossible',
    'tasks, as real benchmarks are; 100 = all alike), the second run worse by the drop in two ways:',
    'on every task in proportion, or on a few tasks broken outright. The smallest drop caught and',
    'what a target needs are for the weaker of the two. Seeded (--seed): the same question gives',
    'the same answer.',
    '',
    'Given runs (run directories, summary.json files, or a runs directory for its newest run)',
    "instead of a planned size, it answers for every cell with a gate, from the cell's own tasks,",
    'repeats, budget and per-task rates; how much its tasks differ is read from their repeats (with',
    'one repeat nothing shows it, and they are taken as alike, where the gate sees least), and',
    '--concentration overrides it.',
    '',
    '--metric gates another metric than the headline (Seq@K, Pass@K): reliability (Seq^K with',
    'feedback, pass^K independent), seqHat, passHat or coverAt (Cover@1). Its drops are drops of that',
    'metric: each simulated run loses the rate at K (in proportion, or on a few tasks) that costs it',
    'exactly the drop in expectation; --rate stays the rate at K the tasks are drawn around.',
    '',
    'Examples:  npx seqk power --tasks 40 --repeats 3 --rate 0.75',
    '           npx seqk power --tasks 40 --repeats 3 --rate 0.75 --metric reliability',
    '           npx seqk power .seqk/runs/latest --target 0.05',
  ].join('\n'),
  flags: [
    {
      name: 'tasks',
      kind: 'int',
      min: 1,
      value: '<n>',
      description: 'planned number of tasks (with --repeats and --rate; or give run directories instead)',
    },
    { name: 'repeats', kind: 'int', min: 1, value: '<n>', description: 'planned repeats per task (default 1)' },
    {
      name: 'rate',
      kind: 'number',
      min: 0,
      max: 1,
      value: '<0..1>',
      description: 'expected Seq@K of the baseline, e.g. 0.75',
    },
    {
      name: 'budget',
      kind: 'int',
      min: 1,
      value: '<K>',
      description: 'attempts per trajectory (default 5; a run uses its own)',
    },
    {
      name: 'concentration',
      kind: 'number',
      min: 0.01,
      max: 10000,
      value: '<c>',
      description: "how alike tasks are (default 1; a run's is estimated from its per-task rates)",
    },
    {
      name: 'target',
      kind: 'number',
      min: 0.01,
      max: 1,
      value: '<drop>',
      description: 'the drop to catch 80% of the time, for the tasks/repeats it needs (default 0.1 = 10 points)',
    },
    {
      name: 'ks',
      kind: 'string',
      value: '<k,k>',
      description: 'attempt counts gated besides K, comma-separated (Holm over all of them)',
    },
    { name: 'margin', kind: 'number', min: 0, max: 1, value: '<m>', description: "the gate's margin (default 0)" },
    { name: 'max-drop', kind: 'number', min: 0, max: 1, value: '<d>', description: "the gate's maxDrop (default 0.1)" },
    {
      name: 'independent',
      kind: 'boolean',
      description: 'a planned independent-sampling cell (Pass@K) instead of a sequential one',
    },
    {
      name: 'metric',
      kind: 'string',
      value: '<metric>',
      description:
        'the metric gated: headline (default), reliability (Seq^K / pass^K), seqAt, passAt, seqHat, passHat, coverAt (Cover@1)',
    },
    {
      name: 'simulations',
      kind: 'int',
      min: 20,
      value: '<n>',
      description: 'simulated run pairs per drop (default 500: each power within about ±2 points, one standard error)',
    },
    { name: 'seed', kind: 'int', value: '<n>', description: 'seed of the simulation (default 1)' },
    {
      name: 'json',
      kind: 'string',
      value: '-',
      description: 'print the answer as JSON to stdout instead of the table (only `-`: power writes no file)',
    },
  ],
}

const DROPS = [0.02, 0.05, 0.1, 0.15, 0.2, 0.3]
const MAX_TASKS = 5000
const MAX_REPEATS = 20

export interface PowerRow {
  /** What the question is about: "planned" or a cell id. */
  subject: string
  question: PowerQuestion
  /** The lower power of the two alternatives at each drop. */
  table: { drop: number; power: number }[]
  /** The smallest drop caught 80% of the time under both alternatives. */
  detectableDrop: number | null
  /** The alternative under which the gate sees less, whose figures `table` and `detectableDrop` are. */
  alternative: Alternative
  /** Each alternative on its own. */
  alternatives: AlternativePower[]
  target: number
  /** Tasks that reach the target at these repeats under both alternatives (null: more than 5000). */
  tasksNeeded: number | null
  /** Repeats that reach the target with these tasks under both alternatives (null: more than 20). */
  repeatsNeeded: number | null
}

/** The smallest n in [lo, hi] with reaches(n), by doubling then bisection; null when hi does not reach. */
function smallest(lo: number, hi: number, reaches: (n: number) => boolean): number | null {
  if (reaches(lo)) return lo
  let below = lo
  let above = lo
  while (!reaches(above)) {
    below = above
    if (above >= hi) return null
    above = Math.min(hi, above * 2)
  }
  while (above - below > 1) {
    const mid = Math.floor((below + above) / 2)
    if (reaches(mid)) above = mid
    else below = mid
  }
  return above
}

/** The whole answer for one question: table, detectable drop, and what the target needs, under both alternatives. */
export function answerPower(subject: string, question: PowerQuestion, target: number): PowerRow {
  const answer = powerAnswer(question, DROPS)
  const reachable = target <= metricRate(question) + 1e-9
  // The weaker alternative first: most sizes that fail, fail there, and the second is not simulated.
  const order = [answer.alternative, ...ALTERNATIVES.filter((a) => a !== answer.alternative)]
  const reaches = (q: PowerQuestion) => order.every((alternative) => gatePower(q, target, alternative) >= TARGET_POWER)
  return {
    subject,
    question,
    table: answer.at,
    detectableDrop: answer.detectableDrop,
    alternative: answer.alternative,
    alternatives: answer.alternatives,
    target,
    tasksNeeded: reachable ? smallest(question.tasks, MAX_TASKS, (tasks) => reaches({ ...question, tasks })) : null,
    repeatsNeeded: reachable
      ? smallest(question.repeats, MAX_REPEATS, (repeats) => reaches({ ...question, repeats }))
      : null,
  }
}

/** A question per gateable cell of finished runs: its size, its rate, its tasks' spread. */
export function questionsFromCells(
  cells: readonly CellSummary[],
  base: Omit<GateRule, 'K' | 'independent' | 'ks' | 'metric'> & { ks: number[] },
  options: { seed?: number; simulations?: number },
  metric?: GateMetric,
): { subject: string; question: PowerQuestion }[] {
  // A named metric is asked of the cells that measure it (a role: of every cell, as its protocol has it).
  const measured = cells.filter((cell) => {
    const m = gateMetricOf(metric, cell.protocol.kind, 'seqk power: --metric')
    return !m || m.protocols.includes(cell.protocol.kind)
  })
  return measured.map((cell) => {
    const independent = cell.protocol.kind === 'independent'
    const K = cell.budget
    const repeats = Math.max(1, ...cell.perTask.map((row) => taskTrials(row, K, headlineMetric(independent).id)))
    const gated = gateMetricOf(metric, cell.protocol.kind, 'seqk power: --metric')
    const ks =
      gated?.index === 'tau'
        ? [1]
        : [...new Set([K, ...base.ks])]
            .filter((k) => k >= 1 && k <= K && (independent || !cell.protocol.budgetDisclosed || k === K))
            .sort((x, y) => x - y)
    const rule: GateRule = { ...base, K, ks, independent, ...(gated ? { metric: gated.id } : {}) }
    return {
      subject: `${cell.benchmark} · ${cell.cellId}`,
      question: { ...populationOf(cell.perTask, rule), repeats, rule, ...options },
    }
  })
}

/** Each alternative as its row of the table is labelled. */
const ROW_LABEL: Readonly<Record<Alternative, string>> = {
  proportional: 'every task worse in proportion',
  concentrated: 'a few tasks broken outright',
}

/** Drops, powers and gate limits are round figures of points: 10, not 10.0. */
const whole = { digits: 0 }

/** The answer as text: one block per subject. */
export function renderPower(rows: readonly PowerRow[]): string {
  const out: string[] = []
  for (const row of rows) {
    const { question: q } = row
    const gated = gatedMetric(q.rule)
    const { label } = gated.metric
    const metric = label(gated.at)
    const family = q.rule.ks.length > 1 ? `Holm over ${q.rule.ks.map(label).join(', ')}` : `${metric} alone`
    const rate = metricRate(q)
    const spread = q.spread === undefined ? 'given' : SPREAD_TEXT[q.spread]
    out.push(
      `${row.subject}: ${metric}, ${plural(q.tasks, 'task')} × ${plural(q.repeats, 'repeat')}, baseline ${percent(rate)}%${metric === headlineMetric(q.rule.independent).label(q.rule.K) ? '' : ` (${headlineMetric(q.rule.independent).label(q.rule.K)} ${percent(q.rate)}%)`}, concentration ${Number((q.concentration ?? 1).toPrecision(3))} (${spread})`,
      `  gate seqk.gate/2: margin ${percent(q.rule.margin, whole)} points, maxDrop ${percent(q.rule.maxDrop, whole)} points, ${family}; ${q.simulations ?? 200} simulated run pairs per drop (each power ±${(50 / Math.sqrt(q.simulations ?? 200)).toFixed(0)} points at most, one standard error), seed ${q.seed ?? 1}`,
    )
    if (row.table.length === 0) {
      out.push('  the baseline solves nothing: no drop can be seen', '')
      continue
    }
    const labels = row.alternatives.map((a) => `  caught (%), ${ROW_LABEL[a.alternative]}`)
    const head = Math.max('  drop (points)'.length, ...labels.map((l) => l.length))
    const cells = [
      row.table.map((x) => percent(x.drop, whole)),
      ...row.alternatives.map((a) => a.at.map((x) => percent(x.power, whole))),
    ]
    const width = Math.max(4, ...cells.flat().map((c) => c.length))
    out.push(
      ...['  drop (points)', ...labels].map(
        (label, i) => `${label.padEnd(head)} ${cells[i]!.map((c) => c.padStart(width)).join(' ')}`,
      ),
    )
    const weaker = ALTERNATIVE_TEXT[row.alternative]
    const other = row.alternatives.find((a) => a.alternative !== row.alternative)!
    const besides =
      other.detectableDrop === null || other.detectableDrop === row.detectableDrop
        ? ''
        : `; ${percent(other.detectableDrop, whole)} with ${ALTERNATIVE_TEXT[other.alternative]}`
    out.push(
      row.detectableDrop === null
        ? `  no drop up to the whole rate is caught ${percent(TARGET_POWER, whole)}% of the time with ${weaker}: too few tasks to gate on`
        : `  smallest drop caught ${percent(TARGET_POWER, whole)}% of the time: ${percent(row.detectableDrop, whole)} points, with ${weaker}${besides}`,
    )
    const target = `${points(row.target)} drop`
    if (row.target > rate + 1e-9) out.push(`  ${target} is more than the baseline's whole rate`)
    else if (row.tasksNeeded === q.tasks)
      out.push(`  ${target} is already caught ${percent(TARGET_POWER, whole)}% of the time at this size`)
    else {
      const tasks = row.tasksNeeded === null ? `more than ${MAX_TASKS} tasks` : `${row.tasksNeeded} tasks`
      const repeats =
        row.repeatsNeeded === null
          ? `not even ${MAX_REPEATS} repeats at ${plural(q.tasks, 'task')}`
          : `${plural(row.repeatsNeeded, 'repeat')} at ${plural(q.tasks, 'task')}`
      out.push(
        `  to catch ${target} ${percent(TARGET_POWER, whole)}% of the time either way: ${tasks} at ${plural(q.repeats, 'repeat')}, or ${repeats}`,
      )
    }
    out.push('')
  }
  return out.join('\n').trimEnd()
}
