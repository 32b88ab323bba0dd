// One protocol (and one cell spec) for tests that need a plain, valid one: a sequential cell with
// binary feedback and full history (an independent one has neither), budget 3, nothing disclosed.
// A test names only the fields its assertions read, so the next field added to ProtocolSchema (or
// CellSpec) is filled in here once.
import type { Protocol } from '../src/core/schemas.js'
import type { CellSpec } from '../src/protocol/cell.js'
import { fullHistory } from '../src/protocol/history.js'
import { defaultPromptBuilder } from '../src/protocol/prompt-builder.js'

/** A protocol of `kind` (default sequential) with `overrides` on top. */
export function protocolFixture(overrides: Partial<Protocol> = {}): Protocol {
  const independent = overrides.kind === 'independent'
  return {
    schema: 'seqk.protocol/1',
    kind: 'sequential',
    benchmark: { name: 'b', tasks: 1, contentHash: 'h' },
    verifier: { name: 'v', version: '1', settings: {} },
    feedback: independent ? null : { kind: 'binary', name: 'binary', version: '1', settings: {} },
    history: independent ? null : { name: 'full', settings: {} },
    promptBuilder: 'seqk-prompt/1',
    actor: { provider: 'test', model: 'm', params: {} },
    budget: 3,
    budgetDisclosed: false,
    errorsCountedAsFailures: false,
    ...overrides,
  }
}

/**
 * A cell spec for runCell tests: full history, the default prompt builder, budget 3, one repeat,
 * all tasks at once, nothing disclosed, no thresholds and errored trajectories left out. A test
 * names what it varies (the tasks, actor, verifier, mode); `runId`, `benchmark` and the cell id
 * default from the mode's name.
 */
export function cellSpecFixture(
  fields: Pick<CellSpec, 'tasks' | 'actor' | 'verifier' | 'mode'> & Partial<CellSpec>,
): CellSpec {
  return {
    runId: 'fixture',
    benchmark: 'fixture',
    cellId: `fixture · ${fields.mode?.name ?? 'independent'}`,
    history: fullHistory,
    promptBuilder: defaultPromptBuilder,
    budget: 3,
    repeats: 1,
    discloseBudget: false,
    concurrency: fields.tasks.length,
    thresholds: {},
    errors: 'left-out',
    ...fields,
  }
}
