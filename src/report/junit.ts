/**
 * A run as JUnit XML (Apache Ant's report format, which CI dashboards read), read through the
 * verdict model as every other output is: one `testsuite` per benchmark with one `testcase` per
 * cell (a failed cell's one `failure` or `error` lists each failed check once; a cell that did not
 * run is `skipped` with its reason), and one suite per eval file that failed to load, its one test
 * case an `error`. So the cases that fail are the cells Vitest fails, plus the broken files.
 * Written to pass the strictest common JUnit schema (every suite with `properties`, `system-out`,
 * `system-err`).
 * A suite's `system-out` holds each cell's line and the notes every output prints (the held-out
 * gap, a verifier known to be unstable); `seqk.verifierUnstable` names the cells whose verifier is.
 */
import { headlineCurve } from '../protocol/cell-metrics.js'
import { readStatistic, STATISTICS, statisticValueText } from '../protocol/statistics/index.js'
import type { CellSummary, RunSummary } from '../core/schemas.js'
import { percentText } from '../metrics/format.js'
import { cellInstrument, cellSubject } from '../core/instrument.js'
import { heldOutGapLine } from '../protocol/held-out-gap.js'
import { extendedLine } from '../protocol/resume.js'
import { verifierUnstableLine } from '../protocol/verifier-unstable.js'
import { couldNotSee, gateNoteLines } from '../protocol/gate-notes.js'
import { cellVerdict, STATUS_TEXT, type CellVerdict } from '../protocol/verdict.js'

// Characters XML 1.0 cannot hold at all, even escaped.
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g

/** Text or an attribute value made safe for XML: escaped, and what XML cannot hold replaced by U+FFFD. */
export function xmlEscape(text: string): string {
  return text
    .replace(NOT_XML, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
}

const attrs = (values: Record<string, string | number>): string =>
  Object.entries(values)
    .map(([k, v]) => ` ${k}="${xmlEscape(String(v))}"`)
    .join('')

const seconds = (ms: number): string => (ms / 1000).toFixed(3)

/**
 * Why a failed cell failed, as its one `failure` or `error`: every failed check of the verdict
 * model once (its message, then its notes and details indented), as the cell's Vitest test says
 * it. A cell that did not finish or measured nothing is an error of the run, not a failed check.
 */
function failureOf(cellId: string, verdict: CellVerdict): { kind: 'failure' | 'error'; xml: string } {
  const failed = verdict.failed
  const kind = failed.some((c) => c.kind === 'finished' || c.kind === 'measured') ? 'error' : 'failure'
  const head = `${cellId}: ${failed.length === 1 ? 'a check' : `${failed.length} checks`} failed`
  const lines = failed.flatMap((c) => [`- ${c.message}`, ...[...c.notes, ...c.details].map((d) => `  ${d}`)])
  const message = failed.length === 1 ? failed[0]!.message : `${head}: ${failed.map((c) => c.message).join('; ')}`
  const text = xmlEscape([head, ...lines].join('\n'))
  return { kind, xml: `<${kind}${attrs({ message, type: `seqk.${failed[0]!.kind}` })}>${text}</${kind}>` }
}

/** What a suite holds: its benchmark's cells (ran or not), or a file that failed to load. */
interface Suite {
  name: string
  file: string
  cells: CellSummary[]
  notRun: { cellId: string; reason: string }[]
  loadError?: string
}

/** The run's suites: each benchmark with the cells it did not run, benchmarks only skipped, then files that failed to load. */
function suitesOf(summary: RunSummary): Suite[] {
  const suites: Suite[] = summary.benchmarks.map((b) => ({ name: b.name, file: b.file, cells: b.cells, notRun: [] }))
  for (const n of summary.notRun ?? []) {
    let suite = suites.find((s) => s.name === n.benchmark && s.file === n.file && s.loadError === undefined)
    if (!suite) suites.push((suite = { name: n.benchmark, file: n.file, cells: [], notRun: [] }))
    suite.notRun.push({ cellId: n.cellId, reason: n.reason })
  }
  for (const e of summary.loadErrors ?? [])
    suites.push({ name: e.file, file: e.file, cells: [], notRun: [], loadError: e.error })
  return suites
}

/**
 * The run's JUnit XML document.
 *
 * @example
 * writeFileSync('seqk-junit.xml', junitXml(summary))
 */
export function junitXml(summary: RunSummary): string {
  const timestamp = summary.createdAt.slice(0, 19)
  const suites = suitesOf(summary).map((suite, id) => {
    const cases: string[] = []
    let failures = 0
    let errors = 0
    let failedChecks = 0
    const testcase = (name: string, time: number, body: string) =>
      `    <testcase${attrs({ name, classname: suite.name, time: seconds(time) })}>${body}</testcase>`
    if (suite.loadError !== undefined) {
      // A file that failed to load is a failed entry of the run, as Vitest and every other output count it.
      errors++
      failedChecks++
      const message = `${suite.file} failed to load: ${suite.loadError}`
      cases.push(
        testcase(suite.file, 0, `<error${attrs({ message, type: 'seqk.loadError' })}>${xmlEscape(message)}</error>`),
      )
    }
    for (const cell of suite.cells) {
      const verdict = cellVerdict(cell)
      let body = ''
      if (verdict.status === 'fail') {
        const failure = failureOf(cell.cellId, verdict)
        body = failure.xml
        if (failure.kind === 'error') errors++
        else failures++
        failedChecks += verdict.failed.length
      }
      cases.push(testcase(cell.cellId, cell.durationMs, body))
    }
    for (const n of suite.notRun)
      cases.push(testcase(n.cellId, 0, `<skipped${attrs({ message: `did not run: ${n.reason}` })}/>`))
    const first = suite.cells[0]
    const unstable = suite.cells.filter((c) => verifierUnstableLine(c) !== null).map((c) => c.cellId)
    const underpowered = suite.cells.filter((c) => c.gate && couldNotSee(c.gate) !== null).map((c) => c.cellId)
    const properties = [
      ['seqk.runId', summary.runId],
      ['seqk.file', suite.file],
      // The checks that failed, each counted once as every output counts them (a failed cell may fail several).
      ['seqk.failedChecks', String(failedChecks)],
      // Cells whose verifier is known to be unstable: a dashboard can flag them without reading system-out.
      ...(unstable.length > 0 ? [['seqk.verifierUnstable', unstable.join(', ')]] : []),
      // Cells whose gate held but could not see the drop that matters: no dashboard should read them as a plain pass.
      ...(underpowered.length > 0 ? [['seqk.gateUnderpowered', underpowered.join(', ')]] : []),
      ...(first
        ? [
            ['seqk.tasks', String(first.protocol.benchmark.tasks)],
            ['seqk.contentHash', first.protocol.benchmark.contentHash],
            ['seqk.budget', String(first.protocol.budget)],
            // Each cell's instrument and subject, fingerprinted apart: same instrument, comparable numbers.
            ...suite.cells.flatMap((c) => [
              [`seqk.instrument ${c.cellId}`, cellInstrument(c).fingerprint],
              [`seqk.subject ${c.cellId}`, cellSubject(c).fingerprint],
              // Every registered statistic of the cell, as the report prints it.
              ...STATISTICS.flatMap((st) => {
                const entry = readStatistic(c, st.id)
                return entry ? [[`seqk.statistic ${c.cellId} ${st.id}`, statisticValueText(st, entry)]] : []
              }),
            ]),
          ]
        : []),
    ]
    const out = [
      ...(suite.loadError !== undefined ? [`${suite.file} failed to load: ${suite.loadError}`] : []),
      ...suite.cells.map(
        (c) =>
          `${c.cellId}: ${STATUS_TEXT[cellVerdict(c).status]}, ${headlineCurve(c).label}@${c.budget} ${percentText(headlineCurve(c).curve[c.budget - 1] ?? null)}${c.score && !c.score.binary ? `, Score@${c.budget} ${percentText(c.score.at[c.budget - 1] ?? null)} (mean best score)` : ''}, ${c.errors.count} errors, ${c.trajectories} trajectories`,
      ),
      ...suite.notRun.map((n) => `${n.cellId}: did not run: ${n.reason}`),
      // The notes the terminal table and the report print under the benchmark, in the same words.
      ...suite.cells.flatMap((c) => heldOutGapLine(c) ?? []),
      ...suite.cells.flatMap((c) => extendedLine(c) ?? []),
      ...suite.cells.flatMap((c) => verifierUnstableLine(c) ?? []),
      // What each passing gate compared across and could not see, naming its cell.
      ...suite.cells.flatMap((c) => (c.gate?.status === 'pass' ? gateNoteLines(c.cellId, c.gate) : [])),
    ].join('\n')
    const time = suite.cells.reduce((n, c) => n + c.durationMs, 0)
    const counts = { tests: cases.length, failures, errors, skipped: suite.notRun.length }
    return [
      `  <testsuite${attrs({ name: suite.name, timestamp, hostname: 'localhost', ...counts, time: seconds(time), package: 'vitest-seqk', id })}>`,
      '    <properties>',
      ...properties.map(([name, value]) => `      <property${attrs({ name: name!, value: value! })}/>`),
      '    </properties>',
      ...cases,
      `    <system-out>${xmlEscape(out)}</system-out>`,
      '    <system-err></system-err>',
      '  </testsuite>',
    ].join('\n')
  })
  return ['<?xml version="1.0" encoding="UTF-8"?>', '<testsuites>', ...suites, '</testsuites>', ''].join('\n')
}
