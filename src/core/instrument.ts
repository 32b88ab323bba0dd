/**
 * The instrument and the subject: what a cell's numbers depend on, split in two.
 *
 * - The **instrument** decides pass or fail and what the actor hears after a failure: the tasks'
 *   inputs and tests or criteria (the benchmark's content hash), the verifier and its settings, the
 *   feedback mode, the history policy, the budget K and whether it is disclosed, how errors count,
 *   and the repeats. Two numbers measure the same thing only under the same instrument.
 * - The **subject** produces the answers: the actor (provider, model, decoding parameters; an app
 *   and its version; an agent's tools), the eval's instructions and the prompt builder's wording.
 *   A change of subject is what a pull request or a model choice wants compared, paired by task.
 *
 * Every protocol field belongs to exactly one of the two (a test checks it against ProtocolSchema).
 * The protocol and its fingerprint stay as they were, so older files and cassettes still match;
 * the two views and their fingerprints are derived from it. Imports nothing of ours outside core/.
 */
import { canonicalJson, sha256 } from './fingerprint.js'
import { errorPolicyOf, type CellSummary, type Instrument, type Protocol, type Subject } from './schemas.js'

/** The protocol fields of the instrument (`repeats`, from the cell, joins them). */
export const INSTRUMENT_FIELDS = [
  'kind',
  'benchmark',
  'verifier',
  'feedback',
  'history',
  'budget',
  'budgetDisclosed',
  'errors',
  // The older spelling of `errors`, folded into it.
  'errorsCountedAsFailures',
] as const satisfies readonly (keyof Protocol)[]

/** The protocol fields of the subject. */
export const SUBJECT_FIELDS = ['actor', 'promptBuilder', 'instructions'] as const satisfies readonly (keyof Protocol)[]

const fingerprintOf = (fields: object): string => sha256(canonicalJson(fields)).slice(0, 16)

/**
 * A protocol's instrument, with the cell's repeats, and its fingerprint.
 *
 * @example
 * instrumentOf(cell.protocol, cell.repeats).fingerprint // e.g. '9c1f03aa27b4e5d1'
 */
export function instrumentOf(protocol: Protocol, repeats: number): Instrument {
  const fields = {
    kind: protocol.kind,
    benchmark: protocol.benchmark,
    verifier: protocol.verifier,
    feedback: protocol.feedback,
    history: protocol.history,
    budget: protocol.budget,
    budgetDisclosed: protocol.budgetDisclosed,
    errors: errorPolicyOf(protocol),
    repeats,
  }
  return { fingerprint: fingerprintOf(fields), ...fields }
}

/**
 * A protocol's subject and its fingerprint. The actor's descriptor is taken whole, so any field an
 * actor adds to it (an app's `version`) is part of the subject without this code knowing it.
 *
 * @example
 * subjectOf(cell.protocol).actor.model // e.g. 'gpt-4.1-mini'
 */
export function subjectOf(protocol: Protocol): Subject {
  const fields = {
    actor: protocol.actor,
    promptBuilder: protocol.promptBuilder,
    ...(protocol.instructions !== undefined ? { instructions: protocol.instructions } : {}),
  }
  return { fingerprint: fingerprintOf(fields), ...fields }
}

/** A cell's instrument: as stored, or derived from its protocol and repeats (files written before the split). */
export function cellInstrument(cell: Pick<CellSummary, 'protocol' | 'repeats' | 'instrument'>): Instrument {
  return cell.instrument ?? instrumentOf(cell.protocol, cell.repeats)
}

/** A cell's subject: as stored, or derived from its protocol (files written before the split). */
export function cellSubject(cell: Pick<CellSummary, 'protocol' | 'subject'>): Subject {
  return cell.subject ?? subjectOf(cell.protocol)
}

/** One field that differs between two records: its dotted path and both values. */
export interface FieldChange {
  path: string
  before: unknown
  after: unknown
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/**
 * The leaf fields in which two records differ, as dotted paths with both values (objects are
 * walked, anything else compared by its canonical JSON). Keys may hold dots themselves (a
 * simulated actor's `repair.verifier`): the path is for reading, the values are the values.
 *
 * @example
 * fieldChanges({ actor: { model: 'a' } }, { actor: { model: 'b' } }) // => [{ path: 'actor.model', before: 'a', after: 'b' }]
 */
export function fieldChanges(a: unknown, b: unknown, path = ''): FieldChange[] {
  if (isRecord(a) && isRecord(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])]
    return keys.flatMap((key) => fieldChanges(a[key], b[key], path ? `${path}.${key}` : key))
  }
  return canonicalJson(a) === canonicalJson(b) ? [] : [{ path, before: a, after: b }]
}

/** Longer strings are shown around their first difference, so a one-word edit of a long prompt reads at a glance. */
const SHOWN_CHARS = 60

function excerpts(before: string, after: string): [string, string] {
  if (before.length <= SHOWN_CHARS && after.length <= SHOWN_CHARS) return [before, after]
  let start = 0
  while (start < before.length && start < after.length && before[start] === after[start]) start++
  const from = Math.max(0, start - 20)
  const cut = (s: string) =>
    `${from > 0 ? '…' : ''}${s.slice(from, from + SHOWN_CHARS)}${s.length > from + SHOWN_CHARS ? '…' : ''}`
  return [cut(before), cut(after)]
}

/**
 * A change as every output prints it: `path: before → after`, values as JSON (`absent` when a side
 * has none), long strings shown around their first difference.
 *
 * @example
 * changeText({ path: 'actor.model', before: 'gpt-4.1-mini', after: 'gpt-4.1' }) // => 'actor.model: "gpt-4.1-mini" → "gpt-4.1"'
 */
export function changeText(change: FieldChange): string {
  const shown = (v: unknown) => (v === undefined ? 'absent' : (JSON.stringify(v) ?? 'absent'))
  if (typeof change.before === 'string' && typeof change.after === 'string') {
    const [b, a] = excerpts(change.before, change.after)
    return `${change.path}: ${JSON.stringify(b)} → ${JSON.stringify(a)}`
  }
  return `${change.path}: ${shown(change.before)} → ${shown(change.after)}`
}
