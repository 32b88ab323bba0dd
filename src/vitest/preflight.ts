/**
 * Checks before the first paid call: what a cell's verifier needs of this machine (a Python
 * interpreter, a sandbox) is checked once per worker, before any cell of it calls a model. Python
 * missing used to be found by each cell's verifier after every first attempt had paid for an
 * answer, and printed once per cell (six times for one eval file) with its newlines breaking the
 * table. Now the first cell to find a problem fails with it on one line; the other cells of the
 * same verifier are skipped, naming that cell.
 */
import { isBundledSimulation } from '../models/simulated.js'
import type { ChatModel } from '../models/chat-model.js'
import type { Verifier } from '../verifiers/verifier.js'

/** One verifier's check for one origin: its outcome (a problem, or undefined) and the cell that reported it. */
interface Check {
  outcome: Promise<string | undefined>
  reportedBy?: string
}

const checks = new WeakMap<Verifier, Map<string, Check>>()

/** What a cell does after the pre-flight: nothing (it runs), fails with the problem, or skips naming who reported it. */
export type PreflightVerdict = { kind: 'ok' } | { kind: 'fail'; message: string } | { kind: 'skip'; note: string }

/**
 * The pre-flight of `verifier` for the answers of `actor`, run once per worker and shared by every
 * cell (see the module comment). `cell` names the asking cell, for the note of the ones after it.
 *
 * @example
 * const verdict = await preflight(spec.verifier, spec.actor, 'bench › gpt · binary')
 * if (verdict.kind === 'fail') throw new Error(verdict.message)
 */
export async function preflight(verifier: Verifier, actor: ChatModel, cell: string): Promise<PreflightVerdict> {
  if (typeof verifier.preflight !== 'function') return { kind: 'ok' }
  const origin = isBundledSimulation(actor) ? 'bundled-simulation' : 'model'
  let byOrigin = checks.get(verifier)
  if (!byOrigin) checks.set(verifier, (byOrigin = new Map()))
  let check = byOrigin.get(origin)
  if (!check) byOrigin.set(origin, (check = { outcome: runCheck(verifier, origin) }))
  const problem = await check.outcome
  if (problem === undefined) return { kind: 'ok' }
  if (check.reportedBy === undefined || check.reportedBy === cell) {
    check.reportedBy = cell
    return { kind: 'fail', message: `pre-flight, before any model call: ${problem}` }
  }
  return {
    kind: 'skip',
    note: `the pre-flight of ${verifier.name} failed in ${check.reportedBy} (${firstClause(problem)}); no model was called`,
  }
}

async function runCheck(verifier: Verifier, origin: 'model' | 'bundled-simulation'): Promise<string | undefined> {
  try {
    await verifier.preflight!({ origin })
    return undefined
  } catch (error) {
    // One line: a message with newlines broke the table it was printed in.
    return String((error as Error)?.message ?? error)
      .split('\n')
      .map((l) => l.trim().replace(/^- /, ''))
      .filter(Boolean)
      .reduce((text, line) => (text === '' ? line : /[.:;]$/.test(text) ? `${text} ${line}` : `${text}; ${line}`), '')
  }
}

/** The problem up to its first `;` or `:` after the component's name, for a note that points at the full one. */
function firstClause(problem: string): string {
  const text = problem.replace(/^vitest-seqk [\w-]+: /, '')
  const cut = text.search(/[;(]/)
  return (cut > 0 ? text.slice(0, cut) : text).trim()
}
