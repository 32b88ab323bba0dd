/**
 * The tables of docs/statistics.md, measured: interval coverage and width by setting, the gate's
 * false alarms, the power it reports against its simulated power, and each error policy's bias and
 * coverage under errors that tell and errors that do not. Seeded, so a rerun writes the same
 * tables; each figure is a mean over many simulated benchmarks, with its Monte-Carlo error.
 *
 *   npx tsx scripts/statistics-tables.ts            # rewrites docs/statistics.md's tables (about 10 min, 2 cores)
 *   npx tsx scripts/statistics-tables.ts --quick    # a tenth of the simulations, printed only
 *   npx tsx scripts/statistics-tables.ts --print    # the full tables, printed only
 *   npx tsx scripts/statistics-tables.ts --only power-accuracy,errors   # some tables
 *
 * Each table sits in the doc between `<!-- statistics-tables:NAME -->` and
 * `<!-- /statistics-tables:NAME -->`; the script replaces what is between, nothing else.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { gatePower, type Alternative } from '../src/protocol/gate-power.js'
import type { GateRule } from '../src/protocol/gate-rule.js'
import {
  attemptTruth,
  clopperPearsonWidth,
  differenceCoverage,
  errorStudy,
  fadingTruth,
  gateFalseAlarms,
  intervalCoverage,
  passAtCoverage,
  populationSeqAt,
  POPULATIONS,
  powerAccuracy,
  detectableDropAccuracy,
  taskRateTruth,
  type AttemptPopulation,
  type ErrorMechanism,
  type PowerTruth,
} from '../studies/statistics-study.js'
import {
  RELIABILITY_FIGURES,
  reliabilityCoverage,
  RESOURCE_POPULATIONS,
  resourceCoverage,
  resourceEstimand,
  TRY_POPULATIONS,
} from '../studies/reliability-study.js'
import {
  ERROR_FIGURES,
  reliabilityErrorStudy,
  type ErrorFigure,
  type FigureResult,
} from '../studies/reliability-errors.js'

const args = process.argv.slice(2)
const quick = args.includes('--quick')
const print = quick || args.includes('--print')
const only = args.includes('--only') ? new Set((args[args.indexOf('--only') + 1] ?? '').split(',')) : null
const scale = (n: number) => Math.max(20, Math.round(quick ? n / 10 : n))
const DOC = fileURLToPath(new URL('../docs/statistics.md', import.meta.url))
const SCRIPT = '`npx tsx scripts/statistics-tables.ts`'

const pct = (x: number, digits = 1) => (x * 100).toFixed(digits)
const signed = (x: number, digits = 1) => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(digits)}`
/** One standard error of a share measured over n draws. */
const shareError = (p: number, n: number) => Math.sqrt(Math.max(p * (1 - p), 0.25 / n) / n)
const K = 5
const rule = (ks: number[]): GateRule => ({ K, ks, independent: false, margin: 0, maxDrop: 0.1, level: 0.95 })
const settings: [string, AttemptPopulation][] = Object.entries(POPULATIONS)

function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ]
}

/** A table's lines: its heading, what it measured, the table, and the script that made it. */
interface Section {
  name: string
  build: () => string[]
}

const sections: Section[] = [
  {
    name: 'rate-intervals',
    build: () => {
      const B = scale(2000)
      const sizes = [5, 8, 10, 20, 40, 100, 500]
      const rows = settings.flatMap(([name, p]) =>
        [1, 3].map((r) => [
          `${name} (${pct(populationSeqAt(p))}%)`,
          String(r),
          ...sizes.map((n) => {
            const c = intervalCoverage(p, n, r, B)
            return `${pct(c.coverage)}% · ${(c.meanWidth / clopperPearsonWidth(n, populationSeqAt(p))).toFixed(2)}×`
          }),
        ]),
      )
      return [
        `#### Coverage of the 95% interval of Seq@5 (korn-graubard/2), and its mean width against Clopper–Pearson on the tasks at one repeat`,
        '',
        `Each cell: coverage · mean width ÷ the exact Clopper–Pearson interval's on N tasks at one repeat. ${B} simulated benchmarks per cell: coverage ±${pct(shareError(0.95, B))} points (one standard error at 95%; ±${pct(shareError(0.99, B))} at 99%). Made by ${SCRIPT}.`,
        '',
        ...table(['population Seq@5', 'repeats', ...sizes.map((n) => `${n} tasks`)], rows),
      ]
    },
  },
  {
    name: 'bootstrap',
    build: () => {
      const B = scale(300)
      const sizes: [number, number][] = [
        [10, 1],
        [20, 1],
        [40, 3],
        [164, 3],
      ]
      const cell = (c: { coverage: number; zeroWidth: number; meanWidth: number }) =>
        `${pct(c.coverage)}% (${pct(c.meanWidth, 0)})${c.zeroWidth > 0 ? `, ${pct(c.zeroWidth)}% zero-width` : ''}`
      return [
        `#### What the intervals replaced: the percentile bootstrap over tasks, and the paired one (2000 resamples each)`,
        '',
        `Coverage (mean width in points) of the rate's interval, and coverage of the paired difference's with no change and with p × 0.6; ${B} simulated benchmarks per cell (±${pct(shareError(0.9, B))} points at 90%). Made by ${SCRIPT}.`,
        '',
        ...table(
          ['population', 'interval', ...sizes.map(([n, r]) => `${n} × ${r}`)],
          settings.flatMap(([name, p]) => [
            [
              `${name} (${pct(populationSeqAt(p))}%)`,
              'Seq@5',
              ...sizes.map(([n, r]) => cell(intervalCoverage(p, n, r, B, 1, 'bootstrap'))),
            ],
            [
              name,
              'difference, no change',
              ...sizes.map(([n, r]) => `${pct(differenceCoverage(p, n, r, 1, B, 1, 'bootstrap').coverage)}%`),
            ],
            [
              name,
              'difference, p × 0.6',
              ...sizes.map(([n, r]) => `${pct(differenceCoverage(p, n, r, 0.6, B, 1, 'bootstrap').coverage)}%`),
            ],
          ]),
        ),
      ]
    },
  },
  {
    name: 'pass-intervals',
    build: () => {
      const B = scale(1000)
      const sizes: [number, number][] = [
        [10, 1],
        [10, 3],
        [20, 1],
        [40, 3],
        [164, 3],
      ]
      return [
        `#### Coverage of the 95% interval of Pass@5 (independent sampling, 5 samples per repeat; korn-graubard/2)`,
        '',
        `${B} simulated benchmarks per cell (±${pct(shareError(0.95, B))} points at 95%). Made by ${SCRIPT}.`,
        '',
        ...table(
          ['population Pass@5', ...sizes.map(([n, r]) => `${n} × ${r}`)],
          settings.map(([name, p]) => [
            `${name} (${pct(populationSeqAt(p))}%)`,
            ...sizes.map(([n, r]) => `${pct(passAtCoverage(p, n, r, B).coverage)}%`),
          ]),
        ),
      ]
    },
  },
  {
    name: 'difference-intervals',
    build: () => {
      const B = scale(1000)
      const sizes: [number, number][] = [
        [10, 1],
        [10, 3],
        [20, 1],
        [20, 3],
        [40, 3],
        [164, 3],
      ]
      return [
        `#### Coverage of the paired difference's 95% interval (paired-agresti-min-t/1), against the difference on the benchmark's own tasks`,
        '',
        `With no change and with a 40% lower per-attempt success; ${B} simulated pairs per cell (±${pct(shareError(0.95, B))} points at 95%). Made by ${SCRIPT}.`,
        '',
        ...table(
          ['population', 'change', ...sizes.map(([n, r]) => `${n} × ${r}`)],
          settings.flatMap(([name, p]) =>
            [1, 0.6].map((s) => [
              name,
              s === 1 ? 'none' : 'p × 0.6',
              ...sizes.map(([n, r]) => `${pct(differenceCoverage(p, n, r, s, B).coverage)}%`),
            ]),
          ),
        ),
      ]
    },
  },
  {
    name: 'false-alarms',
    build: () => {
      const B = scale(2000)
      const sizes: [number, number][] = [
        [8, 1],
        [8, 3],
        [10, 1],
        [20, 1],
        [20, 3],
        [40, 3],
        [164, 3],
      ]
      const families: [string, number[]][] = [
        ['Seq@5', [5]],
        ['Seq@1..5', [1, 2, 3, 4, 5]],
      ]
      return [
        `#### The gate's false alarms with no change (seqk.gate/2, margin 0, maxDrop 10 points)`,
        '',
        `${B} simulated pairs per cell: a rate of 2.5% is ±${pct(shareError(0.025, B))} points (one standard error). Made by ${SCRIPT}.`,
        '',
        ...table(
          ['population', 'gated', ...sizes.map(([n, r]) => `${n} × ${r}`)],
          settings.flatMap(([name, p]) =>
            families.map(([label, ks]) => [
              name,
              label,
              ...sizes.map(([n, r]) => `${pct(gateFalseAlarms(p, n, r, rule(ks), B))}%`),
            ]),
          ),
        ),
      ]
    },
  },
  {
    name: 'power-by-size',
    build: () => {
      const S = scale(1000)
      const drops = [0.02, 0.05, 0.1, 0.15, 0.2]
      const sizes: [number, number][] = [
        [10, 1],
        [20, 3],
        [40, 3],
        [80, 3],
        [164, 1],
        [164, 3],
        [164, 5],
      ]
      const question = (n: number, r: number) => ({
        tasks: n,
        repeats: r,
        rate: 0.75,
        concentration: 1,
        rule: rule([5]),
        simulations: S,
      })
      const rows = sizes.flatMap(([n, r]) =>
        (['proportional', 'concentrated'] as const).map((a) => [
          `${n} × ${r}`,
          a === 'proportional' ? 'every task in proportion' : 'a few tasks broken',
          ...drops.map((d) => `${pct(gatePower(question(n, r), d, a), 0)}%`),
        ]),
      )
      return [
        `#### The gate's power: share of runs in which a true drop of Seq@5 fails it (rate 75%, tasks as different as real ones: concentration 1)`,
        '',
        `Under both ways a drop can fall; the gate's verdict and \`seqk power\` report the lower. ${S} simulated pairs per figure (±${pct(shareError(0.5, S), 0)} points at most). Made by ${SCRIPT}.`,
        '',
        ...table(['tasks × repeats', 'the drop falls on', ...drops.map((d) => `−${pct(d, 0)} points`)], rows),
      ]
    },
  },
  {
    name: 'power-accuracy',
    build: () => {
      const options = { pairs: scale(2000), runs: scale(60), simulations: 200 }
      const cases: [PowerTruth, number, number, number][] = [
        [taskRateTruth(0.6, 5), 8, 1, 0.4],
        [taskRateTruth(0.75, 1), 8, 3, 0.3],
        [taskRateTruth(0.95, 1), 20, 3, 0.1],
        [taskRateTruth(0.75, 1), 40, 3, 0.1],
        [taskRateTruth(0.8, 1), 164, 1, 0.05],
        [taskRateTruth(0.8, 1), 164, 1, 0.1],
        [attemptTruth({ a: 0.5, b: 0.5, budget: 5 }), 164, 1, 0.1],
        [fadingTruth({ a: 1, b: 1, budget: 5 }, 0.5), 164, 1, 0.1],
        [taskRateTruth(0.6, 5), 500, 1, 0.03],
      ]
      const rows = cases.flatMap(([truth, n, r, d]) =>
        (['proportional', 'concentrated'] as const satisfies readonly Alternative[]).map((a) => {
          const x = powerAccuracy(truth, n, r, d, a, options)
          return [
            truth.name,
            `${n} × ${r}`,
            `−${pct(d, 0)}`,
            a === 'proportional' ? 'in proportion' : 'a few tasks',
            `${pct(x.simulated, 0)}% ±${pct(x.se.simulated, 0)}`,
            `${pct(x.reported, 0)}% ±${pct(x.se.reported, 0)}`,
            signed(x.reported - x.simulated, 0),
            `${pct(x.stated, 0)}%`,
          ]
        }),
      )
      return [
        `#### The power the gate reports against its simulated power`,
        '',
        `Simulated: ${options.pairs} baseline/current pairs drawn from the truth, the current run worse by the drop. Reported: the gate's own estimate on a rerun with no change, from that pair alone (how much tasks differ read from repeats, or with one repeat from the two runs), averaged over ${options.runs} runs of the truth, ${options.simulations} simulated pairs each; "stated" is what the verdict says (the lower alternative). ± is one standard error. The fading truth is an actor the simulation does not assume: each revision half as likely to succeed as the attempt before. Made by ${SCRIPT}.`,
        '',
        ...table(
          [
            'truth',
            'tasks × repeats',
            'drop',
            'the drop falls on',
            'simulated',
            'reported',
            'error (points)',
            'stated',
          ],
          rows,
        ),
      ]
    },
  },
  {
    name: 'detectable-drop',
    build: () => {
      const options = { pairs: scale(1000), runs: scale(20), simulations: 200 }
      const cases: [PowerTruth, number, number][] = [
        [taskRateTruth(0.75, 1), 40, 3],
        [taskRateTruth(0.8, 1), 164, 1],
        [attemptTruth({ a: 0.5, b: 0.5, budget: 5 }), 164, 1],
        [fadingTruth({ a: 1, b: 1, budget: 5 }, 0.5), 164, 1],
        [taskRateTruth(0.8, 1), 164, 3],
        [taskRateTruth(0.6, 5), 500, 1],
      ]
      const at = (d: number | null) => (d === null ? 'none' : (d * 100).toFixed(1))
      const rows = cases.flatMap(([truth, n, r]) =>
        (['proportional', 'concentrated'] as const satisfies readonly Alternative[]).map((a) => {
          const x = detectableDropAccuracy(truth, n, r, a, options)
          const error = x.simulated === null || x.reported === null ? '—' : signed(x.reported - x.simulated)
          return [
            truth.name,
            `${n} × ${r}`,
            a === 'proportional' ? 'in proportion' : 'a few tasks',
            at(x.simulated),
            `${at(x.reported)} ±${(x.se * 100).toFixed(1)}`,
            error,
            at(x.stated),
          ]
        }),
      )
      return [
        `#### The smallest drop the gate reports it catches 80% of the time, against the simulated one (points of Seq@5)`,
        '',
        `Simulated: the smallest drop on a 1-point grid that fails the gate in at least 80% of ${options.pairs} baseline/current pairs drawn from the truth (about ±0.3 points). Reported: the gate's own detectable drop for that alternative on a rerun with no change, averaged over ${options.runs} runs of the truth, ± one standard error; "stated" is what the verdict says (the larger of the two alternatives'). Made by ${SCRIPT}.`,
        '',
        ...table(
          ['truth', 'tasks × repeats', 'the drop falls on', 'simulated', 'reported', 'error (points)', 'stated'],
          rows,
        ),
      ]
    },
  },
  {
    name: 'errors',
    build: () => {
      const B = scale(400)
      const population = { a: 1, b: 1.25, budget: 5 }
      // Per-call base rates that give about 10%, about 2% and about 1% errored trajectories.
      const mechanisms: [ErrorMechanism, string, number, number, number][] = [
        ['none', 'a fixed chance per call', 0.042, 0.0085, 0.0042],
        ['failing-attempts', 'failing attempts 5× likelier', 0.0145, 0.0029, 0.0015],
        ['hard-tasks', 'hard tasks likelier', 0.027, 0.0053, 0.0027],
        ['hard-tasks-extreme', 'hard tasks far likelier (cubed)', 0.0045, 0.00075, 0.0003],
      ]
      const rows = mechanisms.flatMap(([m, text, ten, two, one]) =>
        [1, 3].flatMap((r) =>
          [ten, two, one].map((rate) => {
            const x = errorStudy(population, 200, r, m, rate, B)
            return [
              text,
              String(r),
              `${pct(x.errored)}%`,
              `${signed(x.bias.censored, 2)} ±${pct(x.se, 2)}`,
              signed(x.bias.asFailures, 2),
              signed(x.bias.leftOut, 2),
              `${pct(x.censored.coverage)}% (${pct(x.censored.meanWidth, 0)})`,
              `${pct(x.reported.coverage)}% (${pct(x.reported.meanWidth, 0)})`,
            ]
          }),
        ),
      )
      return [
        `#### Error policies when errors tell and when they do not (population Seq@5 ${pct(populationSeqAt(population))}%, 200 tasks)`,
        '',
        `Bias in points against the population Seq@5 (± one standard error; the two simple rules' are alike, from the same draws), and the coverage (mean width in points) of the censored interval (what a summary reported below 2% errored trajectories before \`error-bounds-union/2\`) and of the interval a summary reports (the union of it and the intervals with every errored trajectory a failure and a success, from the first errored trajectory). ${B} simulated benchmarks per row (coverage ±${pct(shareError(0.95, B))} points at 95%). Made by ${SCRIPT}.`,
        '',
        ...table(
          [
            'errors fall on',
            'repeats',
            'errored',
            'censored (default)',
            'as failures',
            'left out',
            'censored interval',
            'reported interval',
          ],
          rows,
        ),
      ]
    },
  },
  {
    name: 'reliability-errors',
    build: () => {
      const B = scale(400)
      const mechanisms: [ErrorMechanism, string, number][] = [
        ['none', 'a fixed chance per call', 0.03],
        ['failing-attempts', 'failing attempts 5× likelier', 0.0125],
        ['hard-tasks', 'hard tasks likelier', 0.03],
        ['hard-tasks-extreme', 'hard tasks far likelier (cubed)', 0.006],
      ]
      const names: Record<ErrorFigure, string> = {
        seqHat: 'Seq^5',
        cover50: 'Cover@0.5',
        consistency: 'outcome consistency',
        inconsistent: 'inconsistent tasks',
      }
      const cell = (x: FigureResult) => `${signed(x.bias, 1)} · ${pct(x.coverage)}% (${pct(x.width, 0)})`
      const rows = (['ceiling', 'middle'] as const).flatMap((name) =>
        mechanisms.flatMap(([m, text, rate]) => {
          const before = reliabilityErrorStudy(POPULATIONS[name], 200, 3, m, rate, B, { rule: 'left-out' })
          const now = reliabilityErrorStudy(POPULATIONS[name], 200, 3, m, rate, B)
          return ERROR_FIGURES.map((f) => [
            name,
            text,
            `${pct(now.errored)}%`,
            names[f],
            cell(before.figures[f]),
            cell(now.figures[f]),
          ])
        }),
      )
      return [
        `#### The reliability block under errors (\`reliabilityErrorStudy\`, 200 tasks × 3 repeats, K = 5, ${B} cells per row)`,
        '',
        `Each cell: bias in points against the figure the full repeats estimate · coverage of its 95% interval (mean width in points), with errored repeats left out (the block before) and counted (hidden, as now). Populations as above; errors as in the error-policy table. Coverage ±${pct(shareError(0.95, B))} points at 95%; a bias's Monte-Carlo error is about 0.2 points. Made by ${SCRIPT}.`,
        '',
        ...table(['population', 'errors fall on', 'errored', 'figure', 'left out (before)', 'counted (now)'], rows),
      ]
    },
  },
  {
    name: 'reliability',
    build: () => {
      const B = scale(2000)
      const rows = Object.entries(TRY_POPULATIONS).flatMap(([name, p]) =>
        [10, 40].flatMap((n) =>
          [2, 5, 10].map((tries) => {
            const c = reliabilityCoverage(p, n, tries, B, 7)
            return [name, String(n), String(tries), ...RELIABILITY_FIGURES.map((f) => pct(c[f].coverage))]
          }),
        ),
      )
      return [
        `#### Coverage of the reliability intervals (\`reliabilityCoverage\`, q ~ Beta(a, b), ${B} benchmarks per row, seed 7)`,
        '',
        `Populations: reliable Beta(4, 0.6), flaky Beta(1.2, 1.2), split Beta(0.3, 0.3). pass^k at k = 2. Coverage ±${pct(shareError(0.95, B))} points (one standard error at 95%). The suite runs 400 benchmarks at N = 10, 2 and 10 tries (\`studies/reliability-study.test.ts\`: at least 94% each). Made by ${SCRIPT}.`,
        '',
        ...table(
          ['population', 'N', 'tries', 'Cover@0.5', 'Cover@1 = Seq^K', 'pass^2', 'consistency', 'inconsistent'],
          rows,
        ),
      ]
    },
  },
  {
    name: 'resource-consistency',
    build: () => {
      const B = scale(4000)
      const repeats = [2, 5, 10]
      const sizes = [10, 20, 40]
      const rows = Object.entries(RESOURCE_POPULATIONS).flatMap(([name, p]) =>
        repeats.map((r) => {
          const truth = resourceEstimand(p, r)
          return [
            name,
            String(r),
            pct(truth),
            pct(resourceEstimand(p, r, 200_000, 99, 'exp-of-mean')),
            ...sizes.map((n) => {
              const c = resourceCoverage(p, n, r, B, 7, truth)
              return `${pct(c.coverage)}% (${pct(c.width, 0)})`
            }),
          ]
        }),
      )
      return [
        `#### Coverage of resource consistency's interval (\`resourceCoverage\`, mean-exp-neg-cv-hall-t/1, ${B} benchmarks per cell, seed 7)`,
        '',
        `Settings: tokens, each repeat exp(σZ) with the task's σ ~ U(0.05, 0.6); heavy, σ ~ U(0.2, 1.5); attempts, the attempts used at K = 5 with a per-attempt chance q ~ Beta(1.2, 1.2); mixed, half the tasks constant and half at σ = 1. The estimand E[exp(−CV)] at r repeats is a Monte-Carlo mean over 200 000 tasks; exp(−E[CV]), the figure before (\`exp-neg-mean-cv-hall-t/2\`), is beside it. Each cell: coverage (mean width in points), ±${pct(shareError(0.95, B))} points. Made by ${SCRIPT}.`,
        '',
        ...table(['setting', 'repeats', 'estimand', 'exp(−mean CV)', ...sizes.map((n) => `${n} tasks`)], rows),
      ]
    },
  },
]

let doc = readFileSync(DOC, 'utf8')
for (const section of sections) {
  if (only && !only.has(section.name)) continue
  const started = performance.now()
  const lines = section.build()
  process.stderr.write(`${section.name}: ${((performance.now() - started) / 1000).toFixed(0)} s\n`)
  if (print) {
    console.log(`${lines.join('\n')}\n`)
    continue
  }
  const [open, close] = [`<!-- statistics-tables:${section.name} -->`, `<!-- /statistics-tables:${section.name} -->`]
  const [from, to] = [doc.indexOf(open), doc.indexOf(close)]
  if (from < 0 || to < from)
    throw new Error(
      `docs/statistics.md: no ${open} … ${close} region for the ${section.name} table; add the two markers where it belongs`,
    )
  doc = `${doc.slice(0, from + open.length)}\n${lines.join('\n')}\n${doc.slice(to)}`
}
if (!print) writeFileSync(DOC, doc)
