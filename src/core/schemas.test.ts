import { describe, expect, it } from 'vitest'
import { AttemptSchema, ProtocolSchema, TrajectoryErrorSchema } from './schemas.js'
import { protocolFixture } from '../../test/protocol-fixture.js'

const protocol = protocolFixture({
  kind: 'independent',
  benchmark: { name: 'b', tasks: 0, contentHash: 'h' },
  verifier: { name: 'v', version: '1', settings: { a: 1, b: 'x', c: true, d: null } },
  budget: 1,
})

describe('artifact schemas', () => {
  it('accept a plain-JSON protocol and reject non-scalar settings or a zero budget', () => {
    expect(ProtocolSchema.parse(protocol)).toEqual(protocol)
    expect(
      ProtocolSchema.safeParse({ ...protocol, verifier: { ...protocol.verifier, settings: { nested: { x: 1 } } } })
        .success,
    ).toBe(false)
    expect(ProtocolSchema.safeParse({ ...protocol, budget: 0 }).success).toBe(false)
    expect(ProtocolSchema.safeParse({ ...protocol, schema: 'seqk.protocol/2' }).success).toBe(false)
  })

  it('keep attempt indexes 1-based and errors to the known stages', () => {
    const attempt = {
      index: 1,
      answer: '',
      verdict: { pass: false, diagnostics: { outcome: 'no-answer', summary: '' } },
      feedback: null,
      finishReason: 'refusal',
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      latencyMs: 0,
      costUsd: null,
      costUsdWithoutCache: null,
      replayed: false,
      helperCalls: [],
      unmodified: null,
    }
    expect(AttemptSchema.safeParse(attempt).success).toBe(true)
    expect(AttemptSchema.safeParse({ ...attempt, index: 0 }).success).toBe(false)
    expect(AttemptSchema.safeParse({ ...attempt, costUsd: Number.NaN }).success).toBe(false)
    expect(TrajectoryErrorSchema.safeParse({ stage: 'grader', attempt: 1, message: '' }).success).toBe(false)
  })
})
