/**
 * The README's statistics tables, measured: interval coverage by setting, the gate's false alarms
 * and its power, and the bias of each error policy. Seeded, so a rerun prints the same tables.
 *
 *   npx tsx scripts/statistics-tables.ts            # under a minute
 *   npx tsx scripts/statistics-tables.ts --quick    # a tenth of the simulated benchmarks
 */
import { gatePower } from '../src/protocol/gate-power.js'
import type { GateRule } from '../src/protocol/gate-rule.js'
import { differenceCoverage, errorBias, gateFalseAlarms, intervalCoverage, passAtCoverage, populationSeqAt, POPULATIONS, type AttemptPopulation } from '../src/protocol/statistics-study.js'

const quick = process.argv.includes('--quick')
const B = quick ? 100 : 1000
const pct = (x: number, digits = 1) => (x * 100).toFixed(digits)
const K = 5
const rule = (ks: number[]): GateRule => ({ K, ks, independent: false, margin: 0, maxDrop: 0.1, level: 0.95 })

function table(header: string[], rows: string[][]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n')
}

const settings: [string, AttemptPopulation][] = Object.entries(POPULATIONS)

console.log(`### Coverage of the 95% interval of Seq@5 (korn-graubard/1, ${B} simulated benchmarks per cell)\n`)
const sizes: [number, number][] = [[10, 1], [10, 3], [10, 10], [20, 1], [20, 3], [40, 3], [40, 10], [164, 3]]
const cell = (c: { coverage: number; zeroWidth: number; meanWidth: number }) => `${pct(c.coverage)}% (${pct(c.meanWidth, 0)})${c.zeroWidth > 0 ? `, ${pct(c.zeroWidth)}% zero-width` : ''}`
console.log('Each cell: coverage (mean width in points).\n')
console.log(table(['population Seq@5', ...sizes.map(([n, r]) => `${n} × ${r}`)], settings.map(([name, p]) => [`${name} (${pct(populationSeqAt(p))}%)`, ...sizes.map(([n, r]) => cell(intervalCoverage(p, n, r, B)))])))

const BB = quick ? 50 : 300
const bootSizes: [number, number][] = [[10, 1], [20, 1], [40, 3], [164, 3]]
console.log(`\n#### What it replaced: the percentile bootstrap over tasks (2000 resamples, ${BB} benchmarks per cell)\n`)
console.log(table(['population Seq@5', ...bootSizes.map(([n, r]) => `${n} × ${r}`)], settings.map(([name, p]) => [`${name} (${pct(populationSeqAt(p))}%)`, ...bootSizes.map(([n, r]) => cell(intervalCoverage(p, n, r, BB, 1, 'bootstrap')))])))

console.log(`\n### Coverage of the 95% interval of Pass@5 (independent sampling, 5 samples per repeat; korn-graubard/1)\n`)
console.log(table(['population Pass@5', ...sizes.map(([n, r]) => `${n} × ${r}`)], settings.map(([name, p]) => [`${name} (${pct(populationSeqAt(p))}%)`, ...sizes.map(([n, r]) => {
  return cell(passAtCoverage(p, n, r, B))
})])))

console.log(`\n### Coverage of the paired difference's 95% interval (paired-agresti-min-t/1), against the difference on the benchmark's own tasks, with no change and a 40% lower per-attempt success\n`)
console.log(table(['population', 'change', ...sizes.map(([n, r]) => `${n} × ${r}`)], settings.flatMap(([name, p]) => [1, 0.6].map((scale) => [name, scale === 1 ? 'none' : 'p × 0.6', ...sizes.map(([n, r]) => `${pct(differenceCoverage(p, n, r, scale, B).coverage)}%`)]))))
console.log(`\n#### What it replaced: the paired percentile bootstrap (2000 resamples, ${BB} benchmarks per cell)\n`)
console.log(table(['population', 'change', ...bootSizes.map(([n, r]) => `${n} × ${r}`)], settings.flatMap(([name, p]) => [1, 0.6].map((scale) => [name, scale === 1 ? 'none' : 'p × 0.6', ...bootSizes.map(([n, r]) => `${pct(differenceCoverage(p, n, r, scale, BB, 1, 'bootstrap').coverage)}%`)]))))

console.log(`\n### The gate's false alarms with no change (seqk.gate/2, margin 0, maxDrop 10 points; ${B} pairs)\n`)
const gateSizes: [number, number][] = [[8, 1], [8, 3], [10, 1], [20, 1], [20, 3], [40, 3], [164, 3]]
const families: [string, number[]][] = [['Seq@5', [5]], ['Seq@1..5', [1, 2, 3, 4, 5]]]
console.log(table(['population', 'gated', ...gateSizes.map(([n, r]) => `${n} × ${r}`)], settings.flatMap(([name, p]) => families.map(([label, ks]) => [name, label, ...gateSizes.map(([n, r]) => `${pct(gateFalseAlarms(p, n, r, rule(ks), B))}%`)]))))

console.log(`\n### The gate's power: share of runs in which a true drop of Seq@5 fails it (rate 75%, tasks as different as real ones: concentration 1; ${quick ? 100 : 1000} pairs, so each figure is within about ±3 points)\n`)
const drops = [0.02, 0.05, 0.1, 0.15, 0.2]
const powerSizes: [number, number][] = [[10, 1], [20, 3], [40, 3], [80, 3], [164, 3], [164, 5]]
console.log(table(['tasks × repeats', ...drops.map((d) => `−${pct(d, 0)} points`)], powerSizes.map(([n, r]) => [`${n} × ${r}`, ...drops.map((d) => `${pct(gatePower({ tasks: n, repeats: r, rate: 0.75, concentration: 1, rule: rule([5]), simulations: quick ? 100 : 1000 }, d), 0)}%`)])))

console.log(`\n### Bias of Seq@5 by error policy (points; population ${pct(populationSeqAt({ a: 15, b: 21, budget: 5 }))}%, memoryless actor, 200 tasks × 3 repeats, ${quick ? 20 : 100} benchmarks)\n`)
const errorPopulation = { a: 15, b: 21, budget: 5 }
console.log(table(['errors per call', 'censored (default)', 'as failures', 'left out'], [0.05, 0.1].map((rate) => {
  const bias = errorBias(errorPopulation, 200, 3, rate, quick ? 20 : 100)
  const points = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}`
  return [`${pct(rate, 0)}%`, points(bias.censored), points(bias.asFailures), points(bias.leftOut)]
})))
