/**
 * Refusals: a Seq@K number is defined only together with its protocol, so actors are
 * compared only on protocols equal in everything but the actor. The independent cells of a
 * benchmark are compared with each other, and each feedback mode's cells with each other.
 */
import type { CellSummary, Protocol } from '../core/schemas.js'
import { protocolDifferences } from '../core/fingerprint.js'
import { fieldChanges, instrumentOf } from '../core/instrument.js'

/** A cell and the run it was read from (the cell's own `runId` may name the run directory instead). */
export interface SourcedCell {
  cell: CellSummary
  runId: string
}

/** Why two cells cannot be compared: the fields in which their protocols differ. */
export interface ComparabilityProblem {
  benchmark: string
  mode: string
  /** `protocol`: protocols differ beyond the actor; `duplicate`: one actor measured twice; `actor`: one actor id, two different models or settings. */
  kind: 'protocol' | 'duplicate' | 'actor'
  /** The cells involved, as `cell id (run id)`. */
  cells: string[]
  /** Dotted protocol fields that differ (empty for duplicates). */
  fields: string[]
  message: string
}

/** Thrown when numbers whose protocols differ would be compared; `problems` names every one. */
export class ComparabilityError extends Error {
  readonly problems: ComparabilityProblem[]
  constructor(problems: ComparabilityProblem[]) {
    super(
      `refused: these numbers are not comparable (their instruments differ: more than the subject changed):\n${problems.map((p) => `  - ${p.message}`).join('\n')}`,
    )
    this.name = 'ComparabilityError'
    this.problems = problems
  }
}

/** The instrument's fields (its fingerprint and the repeats, which no protocol holds, left out). */
function instrumentFields(p: Protocol) {
  const { fingerprint: _f, repeats: _r, ...fields } = instrumentOf(p, 1)
  return fields
}

/**
 * The instrument fields (dotted paths) in which two protocols differ: the subject (the actor, its
 * instructions, the prompt builder) left out, so empty when the two numbers may be compared.
 *
 * @example
 * differencesBesidesActor(a, { ...a, actor: other }) // => []
 * differencesBesidesActor(a, { ...a, budget: 3 }) // => ['budget']
 */
export function differencesBesidesActor(a: Protocol, b: Protocol): string[] {
  return fieldChanges(instrumentFields(a), instrumentFields(b)).map((c) => c.path)
}

export function cellLabel(sourced: SourcedCell): string {
  return `"${sourced.cell.cellId}" (run ${sourced.runId})`
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>()
  for (const item of items) {
    const k = key(item)
    const group = groups.get(k)
    if (group) group.push(item)
    else groups.set(k, [item])
  }
  return groups
}

/**
 * Every reason the cells may not be compared actor against actor:
 * - within a benchmark and mode (`independent` being one), a protocol that differs from the
 *   group's first cell in anything but the actor;
 * - one actor measured twice for the same benchmark and mode (e.g. the same run passed twice
 *   under different names, or two runs of one actor): which number would be "the" actor's?
 * - one actor id standing for different models or settings in different modes of a benchmark, so
 *   its Pass@K and Seq@K would describe two different actors.
 *
 * @example
 * comparabilityProblems(cells) // => [] when every group agrees
 */
export function comparabilityProblems(cells: readonly SourcedCell[]): ComparabilityProblem[] {
  const problems: ComparabilityProblem[] = []
  for (const group of groupBy(cells, (c) => `${c.cell.benchmark}\u0000${c.cell.mode}`).values()) {
    const first = group[0] as SourcedCell
    const { benchmark, mode } = first.cell
    for (const other of group.slice(1)) {
      const fields = differencesBesidesActor(first.cell.protocol, other.cell.protocol)
      if (fields.length > 0) {
        problems.push({
          benchmark,
          mode,
          kind: 'protocol',
          cells: [cellLabel(first), cellLabel(other)],
          fields,
          message: `${benchmark} · ${mode}: ${cellLabel(first)} and ${cellLabel(other)} differ in ${fields.join(', ')}`,
        })
      }
    }
    for (const [actorId, same] of groupBy(group, (c) => c.cell.actorId)) {
      if (same.length > 1) {
        problems.push({
          benchmark,
          mode,
          kind: 'duplicate',
          cells: same.map(cellLabel),
          fields: [],
          message: `${benchmark} · ${mode}: actor ${actorId} was measured ${same.length} times (${same.map(cellLabel).join(', ')}); pass only one of these runs`,
        })
      }
    }
  }
  for (const group of groupBy(cells, (c) => `${c.cell.benchmark}\u0000${c.cell.actorId}`).values()) {
    const first = group[0] as SourcedCell
    for (const other of group.slice(1)) {
      const fields = protocolDifferences(first.cell.protocol, other.cell.protocol).filter(
        (f) => f === 'actor' || f.startsWith('actor.'),
      )
      if (fields.length > 0 && first.cell.mode !== other.cell.mode) {
        problems.push({
          benchmark: first.cell.benchmark,
          mode: `${first.cell.mode}/${other.cell.mode}`,
          kind: 'actor',
          cells: [cellLabel(first), cellLabel(other)],
          fields,
          message: `${first.cell.benchmark}: actor id ${first.cell.actorId} stands for different actors in ${cellLabel(first)} and ${cellLabel(other)} (${fields.join(', ')} differ)`,
        })
      }
    }
  }
  return problems
}

/**
 * Throws unless the cells can be compared: their protocols may differ in the actor only.
 *
 * @throws ComparabilityError listing every problem found by {@link comparabilityProblems}.
 * @example
 * assertComparable(cells) // throws: "… differ in verifier.settings.timeoutMs"
 */
export function assertComparable(cells: readonly SourcedCell[]): void {
  const problems = comparabilityProblems(cells)
  if (problems.length > 0) throw new ComparabilityError(problems)
}

// What is expected to differ between an independent cell and a feedback mode's cell.
const PROTOCOL_SPECIFIC = ['kind', 'feedback', 'history']

/**
 * Warnings, not refusals: fields besides the protocol kind, feedback and history in which a
 * benchmark's independent cells differ from a mode's cells (e.g. a different verifier setting),
 * so Pass@K and Seq@K there are not measured on equal terms.
 *
 * @example
 * crossProtocolNotes(cells) // => ['fixtures: the independent and verifier cells also differ in budget']
 */
export function crossProtocolNotes(cells: readonly SourcedCell[]): string[] {
  const notes: string[] = []
  for (const [benchmark, group] of groupBy(cells, (c) => c.cell.benchmark)) {
    const independent = group.find((c) => c.cell.protocol.kind === 'independent')
    if (!independent) continue
    const firstOfMode = new Map<string, SourcedCell>()
    for (const c of group)
      if (c.cell.protocol.kind !== 'independent' && !firstOfMode.has(c.cell.mode)) firstOfMode.set(c.cell.mode, c)
    for (const [mode, c] of firstOfMode) {
      const fields = differencesBesidesActor(independent.cell.protocol, c.cell.protocol).filter(
        (f) => !PROTOCOL_SPECIFIC.includes(f.split('.')[0] as string),
      )
      if (fields.length > 0)
        notes.push(
          `${benchmark}: the independent and ${mode} cells also differ in ${fields.join(', ')}, so Pass@K and Seq@K there are not measured on equal terms`,
        )
    }
  }
  return notes
}
