// One protocol for tests that need a plain, valid one: a sequential cell with binary feedback and
// full history (an independent one has neither), budget 3, nothing disclosed. A test names only
// the fields its assertions read, so the next field added to ProtocolSchema is filled in here once.
import type { Protocol } from '../src/core/schemas.js'

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
