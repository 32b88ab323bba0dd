// The report and the live view at scale (issue 28, item 8): run directories of 1 000, 10 000 and
// 100 000 trajectories (4 cells: 2 simulated actors × binary and verifier feedback, K = 5, 5
// repeats of 50, 500 and 5000 tasks), each written by the real cell loop and the run's own writers
// (scripts/big-run.ts: plan.jsonl, cells.jsonl, trajectories.jsonl, summary.json, report.html), then
// measured each in a process of its own:
//
// - report (scripts/report-figures.ts): reading the run, building report.html with the reporter's
//   function, its bytes, peak RSS; in the browser tests' Chromium, cold and warm, the load event,
//   first contentful paint and the trajectory viewer's first attempt, and the page's JS heap. It
//   fails when the page's cell rows are not the summary's verdicts, or the page asks for anything.
// - live view (scripts/live-figures.ts): `seqk view`'s server on the directory: listening, first
//   paint (the page with the state), the event stream's first event (the snapshot) and its bytes,
//   reading every line written before it started (and, while it reads, the page and a page of
//   trajectories asked for one after the other), one page of a cell's trajectories, RSS.
//
// Every figure is also given as a ratio to the smallest run's, measured in the same run (these
// machines are shared: absolute times move with the load, ratios much less); "n×" is how much
// bigger the run is, so a ratio at or below it is linear or better.
//
//   npx vitest bench --run --project integration test/report-live-scale.bench.ts
//
// SEQK_BENCH_SCALE=1000,10000 measures other sizes (multiples of 100: 4 cells × 5 repeats).
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, bench, describe } from 'vitest'

const root = new URL('..', import.meta.url).pathname
const SIZES = (process.env.SEQK_BENCH_SCALE ?? '1000,10000,100000').split(',').map(Number)
const REPEATS = 5
const CELLS = 4
const ONCE = { iterations: 1, time: 0, warmupIterations: 0, warmupTime: 0 }
const tmp = mkdtempSync(join(tmpdir(), 'seqk-report-live-scale-'))
type Figures = Record<string, number>
const results: { size: number; run: Figures; report: Figures; live: Figures }[] = []

/** Runs `script` under tsx in a process of its own and returns the JSON of its last line. */
function child(script: string, ...args: string[]): Figures {
  const out = execFileSync(
    process.execPath,
    [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, script), ...args],
    { encoding: 'utf8', maxBuffer: 1 << 24, cwd: root },
  )
  return JSON.parse(out.trim().split('\n').pop()!) as Figures
}

/** The rows of the table: label, figure's source and key, unit. */
const ROWS: [string, 'report' | 'live', string, string][] = [
  ['report: read the run', 'report', 'readMs', 'ms'],
  ['report: build report.html', 'report', 'renderMs', 'ms'],
  ['report: build, CPU', 'report', 'renderCpuMs', 'ms'],
  ['report: report.html', 'report', 'bytes', 'B'],
  ['report: peak RSS', 'report', 'maxRssMb', 'MB'],
  ['chromium cold: load event', 'report', 'coldLoadMs', 'ms'],
  ['chromium cold: first paint', 'report', 'coldFirstPaintMs', 'ms'],
  ['chromium cold: viewer shows', 'report', 'coldViewerMs', 'ms'],
  ['chromium warm: load event', 'report', 'warmLoadMs', 'ms'],
  ['chromium warm: first paint', 'report', 'warmFirstPaintMs', 'ms'],
  ['chromium warm: viewer shows', 'report', 'warmViewerMs', 'ms'],
  ['chromium warm: script', 'report', 'warmScriptMs', 'ms'],
  ['chromium warm: layout', 'report', 'warmLayoutMs', 'ms'],
  ['chromium warm: style', 'report', 'warmStyleMs', 'ms'],
  ['chromium: DOM nodes', 'report', 'warmNodes', ''],
  ['chromium: JS heap', 'report', 'warmJsHeapMb', 'MB'],
  ['view: listening', 'live', 'listeningMs', 'ms'],
  ['view: first paint (page)', 'live', 'firstPaintMs', 'ms'],
  ['view: first paint, CPU', 'live', 'firstPaintCpuMs', 'ms'],
  ['view: page', 'live', 'pageBytes', 'B'],
  ['view: first event (snapshot)', 'live', 'stateMs', 'ms'],
  ['view: first event', 'live', 'stateBytes', 'B'],
  ['view: caught up', 'live', 'caughtUpMs', 'ms'],
  ['view: caught up, CPU', 'live', 'caughtUpCpuMs', 'ms'],
  ['view: page, catching up, median', 'live', 'pageWhileCatchingUpMedianMs', 'ms'],
  ['view: page, catching up, max', 'live', 'pageWhileCatchingUpMaxMs', 'ms'],
  ['view: 50 traj., catching up, max', 'live', 'trajectoriesWhileCatchingUpMaxMs', 'ms'],
  ['view: 50 trajectories', 'live', 'pageOfTrajectoriesMs', 'ms'],
  ['view: RSS caught up', 'live', 'rssCaughtUpMb', 'MB'],
  ['view: peak RSS', 'live', 'maxRssMb', 'MB'],
]

afterAll(() => {
  rmSync(tmp, { recursive: true, force: true })
  if (results.length === 0) return
  const base = results[0]!
  const head = results.map(
    (r) => `${r.size}`.padStart(10) + (r === base ? '' : `${`(${r.size / base.size}×)`.padStart(10)}`),
  )
  const lines = [
    `report.html and seqk view at scale (${CELLS} cells × ${REPEATS} repeats, K = 5; load ${loadavg()[0]!.toFixed(1)}); ratio to the ${base.size}-trajectory run in brackets:`,
    `  ${'figure'.padEnd(30)} ${'unit'.padEnd(4)} ${head.join(' ')}`,
  ]
  for (const [label, source, key, unit] of ROWS) {
    const cells = results.map((r) => {
      const v = r[source][key]
      const b = base[source][key]
      const text = `${v ?? '—'}`.padStart(10)
      if (r === base) return text
      return `${text}${(v === undefined || b === undefined || b <= 0 ? '' : `(${(v / b).toFixed(2)})`).padStart(10)}`
    })
    lines.push(`  ${label.padEnd(30)} ${unit.padEnd(4)} ${cells.join(' ')}`)
  }
  console.log(lines.join('\n'))
})

describe('report.html and seqk view at scale', () => {
  bench(
    `${SIZES.join(', ')} trajectories: report and live view (figures printed after the run)`,
    () => {
      // Vitest may call a bench more than once whatever its options say: measure once.
      if (results.length > 0) return
      for (const size of SIZES) {
        if (size % (CELLS * REPEATS) !== 0) throw new Error(`SEQK_BENCH_SCALE: ${size} is not a multiple of 20`)
        const dir = join(tmp, `run-${size}`)
        const run = child('scripts/big-run.ts', dir, `${size / (CELLS * REPEATS)}`, `${REPEATS}`)
        if (run.trajectories !== size) throw new Error(`big-run wrote ${run.trajectories} trajectories, not ${size}`)
        const report = child('scripts/report-figures.ts', dir)
        const live = child('scripts/live-figures.ts', dir)
        results.push({ size, run, report, live })
        rmSync(dir, { recursive: true, force: true })
      }
    },
    ONCE,
  )
})
