import { execFileSync } from 'node:child_process'
import { plural } from '../metrics/format.js'
import { relative } from 'node:path'
import {
  BASELINE_FIX,
  BaselineFileError,
  describeBaselineProblem,
  inspectBaselineFile,
  writeBaselineCell,
} from '../artifacts/baseline-file.js'
import type { CellSummary, GateJson } from '../core/schemas.js'
import { finiteOrNull } from '../protocol/cell-summary.js'
import { cellInstrument, cellSubject } from '../core/instrument.js'
import { compareToBaseline, type GateOptions } from '../protocol/gate.js'
import { ambiguityText, matchBaselineCell, type BaselineMatch, type CellRef } from '../protocol/gate-match.js'
import { couldNotSee, subjectChangeText } from '../protocol/gate-notes.js'

/** Vitest's snapshot update mode, which baselines follow: `all` with -u, `none` in CI, else `new`. */
export type UpdateMode = 'all' | 'new' | 'none'

/**
 * The update mode for baselines: `SEQK_UPDATE_BASELINE=1` forces `all`; otherwise Vitest's own
 * snapshot state (`'new'` by default, `'all'` with `-u`, `'none'` when CI=true).
 */
export function updateMode(snapshotState: unknown): UpdateMode {
  if (process.env.SEQK_UPDATE_BASELINE === '1' || process.env.SEQK_UPDATE_BASELINE === 'true') return 'all'
  const mode = (snapshotState as { _updateSnapshot?: unknown } | undefined)?._updateSnapshot
  if (mode === 'all' || mode === 'new' || mode === 'none') return mode
  return process.env.CI ? 'none' : 'new'
}

let commit: string | null | undefined
/** The short git commit of the working directory, or null outside a repository. */
export function currentCommit(): string | null {
  if (commit === undefined) {
    try {
      commit =
        execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        }).trim() || null
    } catch {
      commit = null
    }
  }
  return commit
}

/**
 * Checks a finished cell against its committed baseline, or writes the baseline, following
 * snapshot semantics: written when missing locally, refreshed by -u, never written in CI where a
 * missing one fails. The baseline's cell is the one of the same id, else the one of the same mode
 * whose subject's id changed (see matchBaselineCell); a changed subject is compared, paired by
 * task, and said before → after; a changed instrument fails naming the field.
 */
export function applyBaseline(input: {
  path: string
  benchmark: string
  summary: CellSummary
  mode: UpdateMode
  gate: GateOptions
  /**
   * Every cell of this benchmark in this run, for matching a cell whose subject's id changed by its
   * mode. Without it a cell is matched by its own id only.
   */
  cells?: readonly CellRef[]
}): GateJson {
  const { path, benchmark, summary, mode } = input
  const file = relative(process.cwd(), path) || path
  const empty = {
    comparisons: [],
    regressed: [],
    improved: [],
    added: [],
    removed: [],
    changed: [],
  }
  // A baseline that cannot be read, or whose entry for this cell does not add up (a hand edit, a
  // bad merge), fails the gate naming the file, the cell, the field and the fix; -u re-records it.
  const unusable = (problems: readonly string[], fix: string): GateJson => ({
    status: 'fail',
    file,
    messages: [...problems.map((p) => `${file}: ${p}`), ...(fix ? [fix] : [])],
    ...empty,
  })
  let inspected: ReturnType<typeof inspectBaselineFile>
  try {
    inspected = inspectBaselineFile(path)
  } catch (error) {
    if (!(error instanceof BaselineFileError)) throw error
    // -u refreshes even a file this version cannot read.
    if (mode !== 'all') return unusable(error.problems, error.fix)
  }
  const stored = inspected?.file.benchmarks[benchmark]?.cells ?? {}
  const self: CellRef = { cellId: summary.cellId, mode: summary.mode }
  const match: BaselineMatch = input.cells
    ? matchBaselineCell(
        self,
        Object.entries(stored).map(([cellId, cell]) => ({ cellId, mode: cell.mode })),
        input.cells,
      )
    : stored[summary.cellId]
      ? { kind: 'same-id', cellId: summary.cellId }
      : { kind: 'none' }
  const matched = match.kind === 'same-id' || match.kind === 'by-mode' ? match.cellId : undefined
  const problems = (inspected?.problems ?? []).filter(
    (p) => p.benchmark === benchmark && (p.cell === summary.cellId || p.cell === matched),
  )
  if (problems.length > 0 && mode !== 'all') return unusable(problems.map(describeBaselineProblem), BASELINE_FIX)
  const existing = matched === undefined ? undefined : stored[matched]
  const replaced = match.kind === 'by-mode' ? match.cellId : undefined
  const write = () =>
    writeBaselineCell(
      path,
      benchmark,
      summary.cellId,
      {
        fingerprint: summary.fingerprint,
        protocol: summary.protocol,
        mode: summary.mode,
        instrumentFingerprint: cellInstrument(summary).fingerprint,
        subjectFingerprint: cellSubject(summary).fingerprint,
        perTask: summary.perTask,
        seqAt: summary.seqAt,
        passAt: summary.passAt,
        recordedAt: new Date().toISOString(),
        commit: currentCommit(),
      },
      // The cell it was matched with by mode is this cell under its earlier subject: replaced.
      { replaceInvalid: mode === 'all', ...(replaced !== undefined ? { replaces: replaced } : {}) },
    )
  const replacing =
    replaced === undefined ? '' : ` (replacing ${JSON.stringify(replaced)}, this cell before its subject's id changed)`
  // A run that measured nothing, or hit infrastructure errors, would make a baseline that every
  // later run "passes" against: never write one from it.
  const unhealthy = summary.errors.count > 0 || summary.thresholds.some((t) => t.metric === 'measured' && !t.pass)
  if (unhealthy && (mode === 'all' || !existing)) {
    return {
      status: 'missing',
      file,
      messages: [
        `not writing a baseline for "${summary.cellId}" in ${file}: this run had ${summary.errors.count} errored trajectories or measured nothing; fix the errors and run again.`,
      ],
      ...empty,
    }
  }
  if (mode === 'all') {
    write()
    return {
      status: existing ? 'updated' : 'written',
      file,
      messages: [`baseline ${existing ? 'updated' : 'written'} in ${file}${replacing}`],
      ...empty,
    }
  }
  if (match.kind === 'ambiguous') return { status: 'fail', file, messages: [ambiguityText(self, match)], ...empty }
  if (!existing) {
    if (mode === 'none') {
      return {
        status: 'missing',
        file,
        messages: [
          `no baseline for "${summary.cellId}" in ${file}, and CI never writes one: run the evals locally (or with -u) and commit ${file}.`,
        ],
        ...empty,
      }
    }
    write()
    return {
      status: 'written',
      file,
      messages: [`no baseline existed: wrote ${file}; commit it so later runs are gated`],
      ...empty,
    }
  }
  const result = compareToBaseline(existing, summary, input.gate)
  const json: GateJson = {
    status: result.pass ? 'pass' : 'fail',
    file,
    messages: [],
    comparisons: result.comparisons.map((c) => ({
      ...c,
      baseline: finiteOrNull(c.baseline),
      current: finiteOrNull(c.current),
      diff: { point: finiteOrNull(c.diff.point), lo: finiteOrNull(c.diff.lo), hi: finiteOrNull(c.diff.hi) },
      p: finiteOrNull(c.p),
      threshold: finiteOrNull(c.threshold),
    })),
    gate: result.gate,
    power: result.power,
    regressed: result.regressed,
    improved: result.improved,
    added: result.added,
    removed: result.removed,
    changed: result.changed,
    instrumentChanges: result.instrumentChanges,
    subjectChanges: result.subjectChanges,
    ...(replaced !== undefined ? { baselineCell: replaced } : {}),
  }
  // Every verdict says what the gate could see: a green gate on too few tasks is not "no regression".
  const headline = result.pass ? [couldNotSee(json) ?? `no regression against ${file}`] : result.reasons
  const change = subjectChangeText(json)
  json.messages = [
    headline[0]!,
    ...(change ? [change] : []),
    ...headline.slice(1),
    ...(result.power ? [result.power.sentence] : []),
    ...result.notes,
    ...taskSetNotes(result),
  ]
  return json
}

/** Tasks the gate could not compare, said out loud: added, removed, or changed and left out. */
function taskSetNotes(result: { added: string[]; removed: string[]; changed: string[] }): string[] {
  const list = (ids: string[]) => `${ids.slice(0, 5).join(', ')}${ids.length > 5 ? `, … (${ids.length})` : ''}`
  const notes: string[] = []
  if (result.added.length > 0)
    notes.push(`${plural(result.added.length, 'task')} added since the baseline (not compared): ${list(result.added)}`)
  if (result.removed.length > 0)
    notes.push(`${plural(result.removed.length, 'task')} removed since the baseline: ${list(result.removed)}`)
  if (result.changed.length > 0)
    notes.push(
      `${plural(result.changed.length, 'task')} changed (prompt, tests or criteria) and left out: ${list(result.changed)}`,
    )
  return notes
}
