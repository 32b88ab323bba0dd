/**
 * A run as JUnit XML (Apache Ant's report format, which CI dashboards read): one `testsuite` per
 * benchmark, one `testcase` per cell, and one more per failed check of a cell (a threshold, the
 * baseline gate, an unfinished cell), so a dashboard lists what failed by name. Written to pass
 * the strictest common JUnit schema (every suite with `properties`, `system-out`, `system-err`).
 * A suite's `system-out` holds each cell's line and the notes every output prints (the held-out
 * gap, a verifier known to be unstable); `seqk.verifierUnstable` names the cells whose verifier is.
 */
import { headlineCurve } from '../protocol/cell-metrics.js'
import { readStatistic, STATISTICS, statisticValueText } from '../protocol/statistics/index.js'
import type { CellSummary, RunSummary, ThresholdResult } from '../core/schemas.js'
import { percent } from '../metrics/format.js'
import { cellInstrument, cellSubject } from '../core/instrument.js'
import { METRICS } from '../metrics/registry.js'
import { isOneOf, RATE_METRICS } from '../core/kinds.js'
import { heldOutGapLine } from '../protocol/held-out-gap.js'
import { extendedLine } from '../protocol/resume.js'
import { verifierUnstableLine } from '../protocol/verifier-unstable.js'
import { couldNotSee, gateNoteLines, subjectChangeText } from '../protocol/gate-notes.js'

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

/** A check's name as a test case: the metric, its k and its limit. */
function checkName(t: ThresholdResult): string {
  if (isOneOf(RATE_METRICS, t.metric)) return `${METRICS[t.metric].label(t.tau ?? t.k ?? '?')} >= ${percent(t.limit)}%`
  if (t.metric === 'maxErrorRate') return `error rate <= ${percent(t.limit)}%`
  if (t.metric === 'finished') return 'the cell finished'
  return 'measured'
}

/** Why a cell failed, as its failure or error: checks first, then the gate. */
interface CellFailure {
  kind: 'failure' | 'error'
  type: string
  name: string
  message: string
}

function failuresOf(cell: CellSummary): CellFailure[] {
  const out: CellFailure[] = []
  for (const t of cell.thresholds.filter((x) => !x.pass)) {
    // A cell that did not finish, or could not measure, is an error of the run, not a failed check.
    const kind = t.metric === 'finished' || t.metric === 'measured' ? 'error' : 'failure'
    out.push({ kind, type: `seqk.${t.metric}`, name: checkName(t), message: t.message })
  }
  if (cell.gate && (cell.gate.status === 'fail' || cell.gate.status === 'missing')) {
    const change = subjectChangeText(cell.gate)
    out.push({
      kind: 'failure',
      type: `seqk.baseline.${cell.gate.status}`,
      name: `baseline ${cell.gate.file}`,
      // The change of subject it compared across, next to the verdict (older files: not in the messages).
      message: [...cell.gate.messages, ...(change && !cell.gate.messages.includes(change) ? [change] : [])].join('\n'),
    })
  }
  return out
}

/**
 * The run's JUnit XML document.
 *
 * @example
 * writeFileSync('seqk-junit.xml', junitXml(summary))
 */
export function junitXml(summary: RunSummary): string {
  const timestamp = summary.createdAt.slice(0, 19)
  const suites = summary.benchmarks.map((b, id) => {
    const cases: string[] = []
    let failures = 0
    let errors = 0
    for (const cell of b.cells) {
      const found = failuresOf(cell)
      const error = found.find((f) => f.kind === 'error')
      const first = error ?? found[0]
      const body = first
        ? `<${first.kind}${attrs({ message: first.message.split('\n')[0] ?? '', type: first.type })}>${xmlEscape(found.map((f) => `${f.name}: ${f.message}`).join('\n'))}</${first.kind}>`
        : ''
      if (first?.kind === 'error') errors++
      else if (first) failures++
      cases.push(
        `    <testcase${attrs({ name: cell.cellId, classname: b.name, time: seconds(cell.durationMs) })}>${body}</testcase>`,
      )
      for (const f of found) {
        if (f.kind === 'error') errors++
        else failures++
        cases.push(
          `    <testcase${attrs({ name: `${cell.cellId} › ${f.name}`, classname: b.name, time: '0.000' })}><${f.kind}${attrs({ message: f.message.split('\n')[0] ?? '', type: f.type })}>${xmlEscape(f.message)}</${f.kind}></testcase>`,
        )
      }
    }
    const first = b.cells[0]
    const unstable = b.cells.filter((c) => verifierUnstableLine(c) !== null).map((c) => c.cellId)
    const underpowered = b.cells.filter((c) => c.gate && couldNotSee(c.gate) !== null).map((c) => c.cellId)
    const properties = [
      ['seqk.runId', summary.runId],
      ['seqk.file', b.file],
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
            ...b.cells.flatMap((c) => [
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
      ...b.cells.map(
        (c) =>
          `${c.cellId}: ${c.verdict}, ${headlineCurve(c).label}@${c.budget} ${percent(headlineCurve(c).curve[c.budget - 1] ?? null)}%${c.score && !c.score.binary ? `, Score@${c.budget} ${percent(c.score.at[c.budget - 1] ?? null)}% (mean best score)` : ''}, ${c.errors.count} errors, ${c.trajectories} trajectories`,
      ),
      // The notes the terminal table and the report print under the benchmark, in the same words.
      ...b.cells.flatMap((c) => heldOutGapLine(c) ?? []),
      ...b.cells.flatMap((c) => extendedLine(c) ?? []),
      ...b.cells.flatMap((c) => verifierUnstableLine(c) ?? []),
      // What each passing gate compared across and could not see, naming its cell.
      ...b.cells.flatMap((c) => (c.gate?.status === 'pass' ? gateNoteLines(c.cellId, c.gate) : [])),
    ].join('\n')
    const time = b.cells.reduce((n, c) => n + c.durationMs, 0)
    return [
      `  <testsuite${attrs({ name: b.name, timestamp, hostname: 'localhost', tests: cases.length, failures, errors, skipped: 0, time: seconds(time), package: 'vitest-seqk', id })}>`,
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
