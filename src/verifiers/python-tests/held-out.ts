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
 * The verdict as feedback may see it: `diagnostics.tests` keeps the visible statements only, the
 * summary counts only them (and says when held-out tests failed, never which), the candidate's
 * output is dropped (code can print the inputs of a held-out call), and a timeout inside a
 * held-out call is not placed. `pass`, `score` and `outcome` still come from every statement;
 * `heldOut` records the split by index and whether every visible statement passed.
 * A statement count of 0 (the harness could not count them) fails closed: nothing visible passed.
 *
 * @example
 * hideHeldOut(verdict, { statements: 4, heldOut: [1, 3] }).heldOut // => { statements: 4, tests: [1, 3], failed: [...], visiblePass }
 */
export function hideHeldOut(verdict: Verdict, split: HeldOutSplit): Verdict {
  const held = new Set(split.heldOut)
  const all = verdict.diagnostics.tests ?? []
  const ran = new Map(all.map((t) => [t.index, t]))
  const visible = all.filter((t) => !held.has(t.index))
  const failed = split.heldOut.filter((i) => ran.get(i)?.pass !== true)
  const visibleCount = split.statements - split.heldOut.length
  const { outcome } = verdict.diagnostics
  const visiblePass =
    (outcome === 'passed' || outcome === 'failed' || outcome === 'timeout') &&
    split.statements > 0 &&
    visible.length === visibleCount &&
    visible.every((t) => t.pass)
  const record: HeldOutRecord = { statements: split.statements, tests: [...split.heldOut], failed, visiblePass }
  const { stdout: _stdout, stderr: _stderr, tests: _tests, ...rest } = verdict.diagnostics
  const diagnostics: Diagnostics = {
    ...rest,
    summary: visibleSummary(verdict.diagnostics, visible, visibleCount, visiblePass, all.length, held),
    ...(all.length > 0 || verdict.diagnostics.tests ? { tests: visible } : {}),
  }
  return { ...verdict, diagnostics, heldOut: record }
}

function visibleSummary(
  d: Diagnostics,
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
      // The judge stops at the statement that ran out of time: index `ran` when it was a test.
      // Its call is named only when that statement is visible; anywhere else the place is withheld.
      const limit = /^timed out after \d+ ms/.exec(d.summary)?.[0] ?? 'timed out'
      if (d.summary.endsWith(' while loading the code')) return d.summary
      if (d.summary.startsWith(`${limit} in the call `) && !held.has(ran) && ran < visibleCount + held.size)
        return d.summary
      return `${limit} (where is not shown: held-out tests run alongside the visible ones)`
    }
    default:
      return d.summary
  }
}
