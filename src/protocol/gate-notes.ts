/**
 * What a baseline gate says beside its verdict, pass or fail, in the words every output prints
 * (the terminal, Vitest's result, pr-comment.md, the report, JUnit): the change of subject it
 * compared across, before → after, and, for a gate that passed, what it could not see. Each line
 * names its cell. Pure: read from the stored gate, so older summaries say it too.
 */
import type { GateJson } from '../core/schemas.js'
import { TOLERANCE } from './gate-rule.js'

type StoredGate = Pick<GateJson, 'status' | 'power' | 'gate' | 'subjectChanges' | 'baselineCell'>

/**
 * The gate passed, but the smallest drop it catches 80% of the time is larger than the drop that
 * matters (its `maxDrop`, default 10 points), or it cannot catch even a drop to zero: "no
 * regression" would claim more than it saw. Returns the sentence that says so, else null.
 *
 * @example
 * couldNotSee(cell.gate!) // => 'no drop it could see; it catches drops of ≥ 63 points 80% of the time (8 tasks × 2 repeats)'
 */
export function couldNotSee(gate: StoredGate): string | null {
  if (gate.status !== 'pass' || !gate.power) return null
  const { detectableDrop, tasks, repeats } = gate.power
  const size = `${tasks} ${tasks === 1 ? 'task' : 'tasks'} × ${repeats} ${repeats === 1 ? 'repeat' : 'repeats'}`
  const matters = gate.gate?.maxDrop ?? 0.1
  if (detectableDrop === null)
    return `no drop it could see; at ${size} it cannot catch even a drop to zero 80% of the time`
  if (detectableDrop <= matters + TOLERANCE) return null
  return `no drop it could see; it catches drops of ≥ ${Math.round(detectableDrop * 100)} points 80% of the time (${size})`
}

/**
 * The change of subject the gate compared across (and the baseline cell it matched, when not the
 * cell's own id), or null when the subject is the baseline's.
 *
 * @example
 * subjectChangeText(cell.gate!) // => 'compared across a change of subject: actor.model: "gpt-4.1-mini" → "gpt-4.1"'
 */
export function subjectChangeText(gate: StoredGate): string | null {
  const changes = gate.subjectChanges ?? []
  const matched = gate.baselineCell ? ` (with the baseline's cell ${JSON.stringify(gate.baselineCell)})` : ''
  if (changes.length === 0) return matched ? `compared${matched}` : null
  return `compared across a change of subject${matched}: ${changes.join('; ')}`
}

/**
 * The lines a cell's gate adds beside its verdict, each naming the cell: the change of subject,
 * then what a passing gate could not see.
 *
 * @example
 * gateNoteLines('openai:gpt-4.1 · verifier', cell.gate!)
 * // => ['openai:gpt-4.1 · verifier: baseline: compared across a change of subject: actor.model: …']
 */
export function gateNoteLines(cellId: string, gate: StoredGate | null | undefined): string[] {
  if (!gate) return []
  return [subjectChangeText(gate), couldNotSee(gate)].flatMap((line) => (line ? [`${cellId}: baseline: ${line}`] : []))
}
