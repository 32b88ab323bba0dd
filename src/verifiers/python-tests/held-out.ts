/**
 * Held-out tests: a task's test statements split into the ones feedback may show and the ones it
 * never shows. The verdict that counts uses every statement; the diagnostics (what verifier
 * feedback, critics and annotators read) keep only the visible ones, and the held-out ones are
 * recorded by index alone, so a revision that special-cases the failing call is seen for what it
 * is: it passes the visible tests and still fails the held-out ones.
 */
import { createHash } from 'node:crypto'
import type { Diagnostics, HeldOutRecord, TestOutcome, Verdict } from '../../core/contract.js'

/** A share of each task's statements held out, chosen by a seeded hash (`pythonTests({ heldOut })`). */
export interface HeldOutShare {
  /** The share of statements held out, in (0, 1). At least one stays visible; with two or more, at least one is held out. */
  share: number
  /** Any integer: the same seed, task id and statement count always give the same split. */
  seed: number
}

/** Why `share` or `seed` cannot be used, or undefined. */
export function heldOutShareProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return `heldOut must be { share, seed }, got ${String(value)}`
  const { share, seed, ...rest } = value as Record<string, unknown>
  const unknown = Object.keys(rest)
  if (unknown.length > 0) return `heldOut has unknown field ${JSON.stringify(unknown[0])}; it takes { share, seed }`
  if (!(typeof share === 'number' && share > 0 && share < 1))
    return `heldOut.share must be a number strictly between 0 and 1, e.g. 0.5, got ${String(share)}`
  if (!Number.isSafeInteger(seed)) return `heldOut.seed must be an integer, e.g. 1, got ${String(seed)}`
  return undefined
}

/**
 * The held-out statement indices of a task with `statements` test statements, in ascending order:
 * the statements ranked by a SHA-256 of (seed, task id, index), the first round(share · n) of them,
 * clamped so that one statement stays visible and, with two or more, one is held out. Pure and
 * deterministic; a different seed gives an independent split.
 *
 * @example
 * heldOutIndices('HumanEval/0', 4, { share: 0.5, seed: 1 }) // => two of 0..3, the same two every time
 */
export function heldOutIndices(taskId: string, statements: number, split: HeldOutShare): number[] {
  if (statements < 2) return []
  const wanted = Math.min(statements - 1, Math.max(1, Math.round(split.share * statements)))
  const rank = (index: number) =>
    createHash('sha256')
      .update(JSON.stringify([split.seed, taskId, index]))
      .digest('hex')
  const order = Array.from({ length: statements }, (_, index) => ({ index, key: rank(index) }))
  order.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.index - b.index))
  return order
    .slice(0, wanted)
    .map((o) => o.index)
    .sort((a, b) => a - b)
}

/** What hides a verdict's held-out tests: the indices, and the statement count they are out of. */
export interface HeldOutSplit {
  statements: number
  heldOut: readonly number[]
}

/** The summary line of a verdict whose visible tests all passed but whose held-out tests did not. */
export const HELD_OUT_FAILED = 'every visible test passed, but the answer failed tests that feedback does not show'

/**
 * The verdict as feedback may see it. `pass`, `score` and `outcome` come from `verdict`, the run
 * of every statement; every text comes from `shown`, the run of the visible statements alone in a
 * fresh process that heard of nothing else (see `HarnessRequest.only`): `diagnostics.tests` are
 * its records, the summary counts only them (and says when held-out tests failed, never which), a
 * load error is its own, and a timeout is placed only where it ran out of time. The candidate's
 * output is dropped. `heldOut` records the split by index, and whether every visible statement
 * passed in the run that counts (so a pass is always a visible pass). Without `shown` (nothing
 * held out, or no statement count) the texts are `verdict`'s own, filtered the same way. A
 * statement count of 0 (the harness could not count them) fails closed: nothing visible passed.
 *
 * @example
 * hideHeldOut(verdict, { statements: 4, heldOut: [1, 3] }, visibleRun).heldOut // => { statements: 4, tests: [1, 3], failed: [...], visiblePass }
 */
export function hideHeldOut(verdict: Verdict, split: HeldOutSplit, shown?: Verdict): Verdict {
  const held = new Set(split.heldOut)
  const all = verdict.diagnostics.tests ?? []
  const ran = new Map(all.map((t) => [t.index, t]))
  const failed = split.heldOut.filter((i) => ran.get(i)?.pass !== true)
  const visibleCount = split.statements - split.heldOut.length
  const { outcome } = verdict.diagnostics
  const visibleOf = (tests: readonly TestOutcome[]) => tests.filter((t) => !held.has(t.index))
  const allVisiblePass = (tests: readonly TestOutcome[]) =>
    split.statements > 0 && visibleOf(tests).length === visibleCount && visibleOf(tests).every((t) => t.pass)
  const visiblePass = (outcome === 'passed' || outcome === 'failed' || outcome === 'timeout') && allVisiblePass(all)
  const record: HeldOutRecord = { statements: split.statements, tests: [...split.heldOut], failed, visiblePass }
  const source = shown?.diagnostics ?? verdict.diagnostics
  const visible = visibleOf(source.tests ?? [])
  const { stdout: _stdout, stderr: _stderr, tests: _tests, error: _error, ...rest } = verdict.diagnostics
  const error = outcome === 'load-error' ? loadError(verdict.diagnostics, shown?.diagnostics) : undefined
  const summary = visibleSummary(
    { ...verdict.diagnostics, ...(error !== undefined ? { error } : {}) },
    shown?.diagnostics,
    visible,
    visibleCount,
    shown ? allVisiblePass(source.tests ?? []) : visiblePass,
    all.length,
    held,
  )
  const diagnostics: Diagnostics = {
    ...rest,
    summary,
    ...(error !== undefined ? { error } : {}),
    ...(all.length > 0 || verdict.diagnostics.tests || source.tests ? { tests: visible } : {}),
  }
  return { ...verdict, diagnostics, heldOut: record }
}

/** The load error feedback may show: the visible run's own, or none when only the run of every test failed to load. */
function loadError(d: Diagnostics, shown: Diagnostics | undefined): string | undefined {
  if (shown === undefined) return d.error
  if (shown.outcome === 'load-error') return shown.error
  return 'the code did not load in the run with the held-out tests'
}

function visibleSummary(
  d: Diagnostics,
  shown: Diagnostics | undefined,
  visible: readonly TestOutcome[],
  visibleCount: number,
  visiblePass: boolean,
  ran: number,
  held: ReadonlySet<number>,
): string {
  const heldNote = `${held.size} held-out`
  switch (d.outcome) {
    case 'passed':
      return `all ${visibleCount} visible tests passed (and ${heldNote})`
    case 'failed': {
      if (visiblePass) return HELD_OUT_FAILED
      const failing = visible.filter((t) => !t.pass).length
      const memory = /\(the attempt's processes were killed[^)]*\)/.exec(d.summary)?.[0]
      return `${failing} of ${visibleCount} visible tests failed (${heldNote} tests not shown)${memory ? ` ${memory}` : ''}`
    }
    case 'timeout': {
      const limit = /^timed out after \d+ ms/.exec(d.summary)?.[0] ?? 'timed out'
      const unplaced = `${limit} (where is not shown: held-out tests run alongside the visible ones)`
      if (shown !== undefined)
        // The visible statements' own run timed out too: where it did is one of theirs.
        return shown.outcome === 'timeout' ? shown.summary : unplaced
      // The judge stops at the statement that ran out of time: index `ran` when it was a test.
      // Its call is named only when that statement is visible; anywhere else the place is withheld.
      if (d.summary.endsWith(' while loading the code')) return d.summary
      if (d.summary.startsWith(`${limit} in the call `) && !held.has(ran) && ran < visibleCount + held.size)
        return d.summary
      return unplaced
    }
    case 'load-error':
      return shown !== undefined
        ? `code did not load: ${(d.error ?? '').replace(/\s+/g, ' ').slice(0, 290)}`
        : d.summary
    default:
      return d.summary
  }
}
