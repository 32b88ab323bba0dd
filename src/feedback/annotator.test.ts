import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ZERO_USAGE, type ChatModel } from '../models/chat-model.js'
import {
  annotatorPrompt,
  parseAnnotatorReply,
  revisionAnnotator,
  revisionClassOf,
  type RequestJudgement,
} from './annotator.js'

describe('parseAnnotatorReply', () => {
  it('reads the JSON object, fenced or in prose, and the usual synonyms', () => {
    const reply = parseAnnotatorReply(
      'Here:\n```json\n{"requests": [{"request": "Fix test_2", "satisfied": "Partially"}, {"request": "Name the cause", "satisfied": true}], "reason": "half"}\n```',
    )
    expect(reply).toEqual({
      requests: [
        { request: 'Fix test_2', satisfied: 'partly' },
        { request: 'Name the cause', satisfied: 'fully' },
      ],
      reason: 'half',
    })
  })
  it.each([
    ['not json at all', /no JSON object/],
    ['{"requests": []}', /requests: list at least one request/],
    [
      '{"requests": [{"request": "x", "satisfied": "maybe"}]}',
      /requests\.0\.satisfied: expected "fully", "partly" or "no"/,
    ],
    ['{"requests": [{"request": " ", "satisfied": "no"}]}', /a request needs its sentence/],
  ])('rejects %s saying why', (text, message) => {
    expect(() => parseAnnotatorReply(text)).toThrow(message)
  })
})

describe("revisionClassOf (the paper's definitions)", () => {
  const judgement = fc.constantFrom<RequestJudgement>('fully', 'partly', 'no')
  it('all: every request fully; unhelpful: none even partly; some: the rest', () => {
    fc.assert(
      fc.property(fc.array(judgement, { minLength: 1, maxLength: 8 }), (js) => {
        const c = revisionClassOf(js)
        expect(c === 'all').toBe(js.every((j) => j === 'fully'))
        expect(c === 'unhelpful').toBe(js.every((j) => j === 'no'))
        expect(c === 'some').toBe(!js.every((j) => j === 'fully') && js.some((j) => j !== 'no'))
      }),
    )
  })
})

describe('revisionAnnotator', () => {
  const model = (reply: (n: number) => string | Error): ChatModel & { seen: number } => {
    const m = {
      id: 'fake',
      seen: 0,
      descriptor: { provider: 'custom', model: 'fake', params: {} },
      async chat() {
        const r = reply(++m.seen)
        if (r instanceof Error) throw r
        return {
          text: r,
          usage: { ...ZERO_USAGE, inputTokens: 100, outputTokens: 10 },
          latencyMs: 1,
          finishReason: 'stop' as const,
          costUsd: 0.001,
        }
      },
    }
    return m
  }
  const input = {
    task: { id: 't', prompt: 'p' },
    previous: 'a',
    feedback: { kind: 'critic', text: 'do x' },
    revision: 'b',
    attempt: 2,
    repeat: 0,
  }

  it("records a failed call as that annotation's error, with what it spent", async () => {
    const failing = model((n) => (n === 1 ? 'nope' : new Error('HTTP 503 from the provider')))
    const record = await revisionAnnotator({ model: failing }).annotate(input)
    expect(record).toMatchObject({
      annotator: 'llm',
      version: annotatorPrompt().id,
      model: 'custom:fake',
      attempt: 2,
      error: 'HTTP 503 from the provider',
    })
    expect(record.calls).toHaveLength(1)
  })

  it('does not serve a failure from the cache', async () => {
    const flaky = model((n) =>
      n === 1 ? new Error('reset') : '{"requests": [{"request": "do x", "satisfied": "no"}]}',
    )
    const annotator = revisionAnnotator({ model: flaky })
    expect(await annotator.annotate(input)).toHaveProperty('error')
    expect(await annotator.annotate(input)).toMatchObject({ class: 'unhelpful' })
    expect(flaky.seen).toBe(2)
  })

  it('rethrows an abort: it ends the cell, not one annotation', async () => {
    const controller = new AbortController()
    const slow = model(() => {
      controller.abort(new Error('test timed out'))
      return new Error('aborted')
    })
    await expect(revisionAnnotator({ model: slow }).annotate({ ...input, signal: controller.signal })).rejects.toThrow(
      'test timed out',
    )
  })
})
