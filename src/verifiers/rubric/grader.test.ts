import { describe, expect, it } from 'vitest'
import { spentCalls, type CallContext } from '../../models/chat-model.js'
import { askedIds, fakeModel } from './test-helpers.js'
import { extractJsonObject, gradeAll, gradeOne, parseAllReply, parseOneReply, RubricGraderError } from './grader.js'

const context: CallContext = { role: 'grader', taskId: 't1', attempt: 0, repeat: 0, protocol: 'sequential' }
const conversation = [{ role: 'user' as const, content: 'Write a haiku about rain.' }]
const criterion = { id: 'c2', text: 'Mentions "rain"' }

describe('extractJsonObject', () => {
  it.each([
    ['{"met": true}', { met: true }],
    ['```json\n{"met": false, "reason": "x"}\n```', { met: false, reason: 'x' }],
    ['Sure! Here is my verdict: {"met": true} Hope it helps.', { met: true }],
    ['```\n{"criteria": []}\n```\ntrailing', { criteria: [] }],
  ])('reads %j', (text, expected) => {
    expect(extractJsonObject(text)).toEqual(expected)
  })

  it('says why nothing could be read', () => {
    expect(() => extractJsonObject('')).toThrow('the reply was empty')
    expect(() => extractJsonObject('yes it is met')).toThrow('the reply holds no JSON object')
    expect(() => extractJsonObject('[true]')).toThrow('no JSON object')
  })
})

describe('parseOneReply / parseAllReply', () => {
  it('accepts booleans and yes/no strings', () => {
    expect(parseOneReply('{"met": true, "reason": " ok "}')).toEqual({ met: true, reason: 'ok' })
    expect(parseOneReply('{"met": "No"}')).toEqual({ met: false, reason: '' })
    expect(() => parseOneReply('{"met": "maybe"}')).toThrow(/expected \{"met"/)
    expect(() => parseOneReply('{"verdict": true}')).toThrow(/met/)
  })

  it('requires exactly the asked ids', () => {
    const ok = parseAllReply('{"criteria": [{"id": "c1", "met": true}, {"id": 2, "met": "yes", "reason": "r"}]}', [
      'c1',
      '2',
    ])
    expect([...ok]).toEqual([
      ['c1', { met: true, reason: '' }],
      ['2', { met: true, reason: 'r' }],
    ])
    expect(() => parseAllReply('{"criteria": [{"id": "c1", "met": true}]}', ['c1', 'c2'])).toThrow('no verdict for c2')
    expect(() => parseAllReply('{"criteria": [{"id": "c9", "met": true}]}', ['c1'])).toThrow('unknown id "c9"')
    expect(() =>
      parseAllReply('{"criteria": [{"id": "c1", "met": true}, {"id": "c1", "met": false}]}', ['c1']),
    ).toThrow('judged twice')
  })
})

describe('gradeOne', () => {
  it('renders the versioned prompt and records the call as a grader call', async () => {
    const grader = fakeModel(() => '{"met": true, "reason": "it mentions rain"}')
    const { verdicts, calls } = await gradeOne(
      { grader, conversation, answer: 'Rain on the roof', context },
      criterion,
      2,
    )
    expect(verdicts.get('c2')).toEqual({ met: true, reason: 'it mentions rain' })
    expect(calls).toEqual([
      {
        role: 'grader',
        usage: { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 },
        latencyMs: 1,
        costUsd: 0.001,
        costUsdWithoutCache: 0.001,
        replayed: false,
      },
    ])
    const [request] = grader.requests
    expect(request!.context).toEqual(context)
    expect(request!.messages.map((m) => m.role)).toEqual(['system', 'user'])
    expect(request!.messages[0]!.content).toContain('{"met": true or false')
    expect(request!.messages[1]!.content).toContain(
      '<conversation>\n[user]\nWrite a haiku about rain.\n</conversation>',
    )
    expect(request!.messages[1]!.content).toContain('<response>\nRain on the roof\n</response>')
    expect(request!.messages[1]!.content).toContain('<criterion id="c2" index="2">Mentions "rain"</criterion>')
  })

  it('repairs one malformed reply, showing the grader its reply and the problem', async () => {
    const grader = fakeModel((_, i) => (i === 0 ? 'The answer meets it.' : '{"met": false, "reason": "no"}'))
    const { verdicts, calls } = await gradeOne({ grader, conversation, answer: 'Sun', context }, criterion, 1)
    expect(verdicts.get('c2')!.met).toBe(false)
    expect(calls).toHaveLength(2)
    const repair = grader.requests[1]!.messages
    expect(repair.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user'])
    expect(repair[2]!.content).toBe('The answer meets it.')
    expect(repair[3]!.content).toContain('Your previous reply could not be used: the reply holds no JSON object')
  })

  it('gives up after a second malformed reply with an infrastructure error naming task, criterion and reply', async () => {
    const grader = fakeModel(() => '{"met": "perhaps"}')
    const run = gradeOne({ grader, conversation, answer: 'x', context }, criterion, 1)
    await expect(run).rejects.toThrow(RubricGraderError)
    await expect(gradeOne({ grader, conversation, answer: 'x', context }, criterion, 1)).rejects.toThrow(
      /grader fake gave malformed output twice for task "t1", criterion c2: .*met.*last reply "\{\\"met\\": \\"perhaps\\"\}"/,
    )
  })

  it('a failure after billed calls carries them: both malformed replies, or the first before a failed repair', async () => {
    const twice = fakeModel(() => '{"met": "perhaps"}')
    const malformed = await gradeOne({ grader: twice, conversation, answer: 'x', context }, criterion, 1).catch(
      (e: unknown) => e,
    )
    expect(spentCalls(malformed).map((c) => [c.role, c.costUsd])).toEqual([
      ['grader', 0.001],
      ['grader', 0.001],
    ])
    const downOnRepair = fakeModel((_, i) => {
      if (i === 1) throw new Error('HTTP 503: overloaded')
      return 'not json'
    })
    const failed = await gradeOne({ grader: downOnRepair, conversation, answer: 'x', context }, criterion, 1).catch(
      (e: unknown) => e,
    )
    expect((failed as Error).message).toBe('HTTP 503: overloaded')
    expect(spentCalls(failed)).toHaveLength(1)
  })

  it('lets provider failures through unchanged', async () => {
    const grader = fakeModel(() => {
      throw new Error('HTTP 500: boom')
    })
    await expect(gradeOne({ grader, conversation, answer: 'x', context }, criterion, 1)).rejects.toThrow(
      'HTTP 500: boom',
    )
  })
})

describe('gradeAll', () => {
  it('asks for every criterion in one call', async () => {
    const grader = fakeModel((r) =>
      JSON.stringify({ criteria: askedIds(r).map((id) => ({ id, met: id === 'a', reason: id })) }),
    )
    const { verdicts, calls } = await gradeAll({ grader, conversation, answer: 'x', context }, [
      [{ id: 'a', text: 'A' }, 1],
      [{ id: 'b', text: 'B', points: 3 }, 3],
    ])
    expect(calls).toHaveLength(1)
    expect([...verdicts]).toEqual([
      ['a', { met: true, reason: 'a' }],
      ['b', { met: false, reason: 'b' }],
    ])
    expect(grader.requests[0]!.messages[1]!.content).toContain('<criterion id="b" index="3" points="3">B</criterion>')
    expect(grader.requests[0]!.messages[1]!.content).toContain('(ids: a, b)')
  })

  it('repairs a reply that misses a criterion', async () => {
    const grader = fakeModel((_, i) =>
      i === 0
        ? '{"criteria": [{"id": "a", "met": true}]}'
        : '{"criteria": [{"id": "a", "met": true}, {"id": "b", "met": true}]}',
    )
    const { verdicts, calls } = await gradeAll({ grader, conversation, answer: 'x', context }, [
      [{ id: 'a', text: 'A' }, 1],
      [{ id: 'b', text: 'B' }, 2],
    ])
    expect(calls).toHaveLength(2)
    expect(verdicts.get('b')!.met).toBe(true)
    expect(grader.requests[1]!.messages[3]!.content).toContain('criteria: no verdict for b')
  })
})
