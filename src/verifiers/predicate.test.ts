import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { renderDiagnostics } from '../feedback/verifier-feedback.js'
import { isComponentError } from '../core/component-error.js'
import { isPromiseLike } from '../core/awaitable.js'
import type { Task } from '../protocol/task.js'
import { predicate, type PredicateRule } from './predicate.js'
import { checkVerdict, type Verdict, type Verifier } from './verifier.js'

const task: Task = { id: 'n/1', prompt: 'An even number, please.' }
const settle = async (verifier: Verifier, answer: string, t: Task = task): Promise<Verdict> =>
  await verifier.verify(t, answer)

describe('verifiers.predicate', () => {
  it('turns a boolean rule into a verifier whose verdicts the protocol accepts, synchronously', () => {
    const even = predicate((answer) => answer.trim() !== '' && Number(answer) % 2 === 0, { name: 'even' })
    const verdict = even.verify(task, '4')
    expect(isPromiseLike(verdict)).toBe(false)
    expect(verdict).toEqual({
      pass: true,
      score: 1,
      diagnostics: { outcome: 'passed', summary: 'the answer satisfies even' },
    })
    expect(even.verify(task, '3')).toEqual({
      pass: false,
      score: 0,
      diagnostics: { outcome: 'failed', summary: 'the answer does not satisfy even' },
    })
    expect(even.verify(task, ' ')).toMatchObject({
      pass: false,
      diagnostics: { outcome: 'no-answer', summary: 'the answer is empty' },
    })
  })

  it("makes the rule's reason the verdict's summary, which feedback.verifier() shows the actor", async () => {
    const sorted = predicate((answer) => {
      const xs = answer.split(',').map(Number)
      const at = xs.findIndex((x, i) => i > 0 && x < xs[i - 1]!)
      return at < 0 ? true : { pass: false, reason: `not sorted: ${xs[at - 1]} comes before ${xs[at]}` }
    })
    const verdict = await settle(sorted, '1,3,2')
    expect(verdict.diagnostics).toEqual({ outcome: 'failed', summary: 'not sorted: 3 comes before 2' })
    expect(renderDiagnostics(verdict.diagnostics, verdict.criteria)).toBe('not sorted: 3 comes before 2')
  })

  it('takes async rules and the task', async () => {
    const rule: PredicateRule = async (answer, t) => ({ pass: answer.includes(t.id) })
    const v = predicate(rule, { name: 'mentions-id' })
    const verdict = v.verify(task, 'about n/1')
    expect(isPromiseLike(verdict)).toBe(true)
    expect((await verdict).pass).toBe(true)
  })

  it.each([
    ["'yes'", 'yes', '(root)'],
    ['1', 1, '(root)'],
    ['undefined (a rule that forgot to return)', undefined, '(root)'],
    ['null', null, '(root)'],
    ["{ met: true } (the rubric predicates' word)", { met: true }, 'pass'],
    ["{ pass: 'true' }", { pass: 'true' }, 'pass'],
    ['{ pass: true, reason: 3 }', { pass: true, reason: 3 }, 'reason'],
  ])(
    'rejects a rule returning %s, naming the rule, the field and the fix (never a pass, never a failure)',
    async (_, returned, field) => {
      for (const v of [
        predicate(() => returned as never, { name: 'hostile' }),
        predicate(async () => returned as never, { name: 'hostile' }),
      ]) {
        const error = await settle(v, 'x').then(
          () => {
            throw new Error('accepted')
          },
          (e: unknown) => e,
        )
        expect(isComponentError(error)).toBe(true)
        expect((error as Error).message).toMatch(
          /^verifiers\.predicate\(fn, \{ name: "hostile" \}\) rule returned a malformed predicate result for task "n\/1": /,
        )
        expect((error as { fields: string[] }).fields).toContain(field)
        expect((error as Error).message).toMatch(
          /Fix: .*(return true, false or \{ pass: boolean, reason\?: string \}|set `pass` to the boolean|make `reason` a string)/,
        )
      }
    },
  )

  it("throws a rule's error as an infrastructure error by default, or fails the answer with onThrow: 'fail'", async () => {
    const parses: PredicateRule = (answer) => (JSON.parse(answer) as { ok: boolean }).ok
    expect(() => predicate(parses, { name: 'json-ok' }).verify(task, 'not json')).toThrow(
      /^verifiers\.predicate\(fn, \{ name: "json-ok" \}\): the rule threw for task "n\/1": SyntaxError: .*return \{ pass: false, reason \} for an answer it cannot read, or pass onThrow: 'fail'/,
    )
    const lenient = predicate(parses, { name: 'json-ok', onThrow: 'fail' })
    const verdict = lenient.verify(task, 'not json') as Verdict
    expect(verdict).toMatchObject({
      pass: false,
      diagnostics: {
        outcome: 'load-error',
        summary: expect.stringMatching(/^the answer could not be checked: SyntaxError: /),
      },
    })
    expect(checkVerdict(lenient, verdict)).toEqual(verdict)
    await expect(
      predicate(async () => Promise.reject(new Error('boom')), { onThrow: 'fail' }).verify(task, 'x'),
    ).resolves.toMatchObject({ diagnostics: { outcome: 'load-error', error: 'Error: boom' } })
    await expect(predicate(async () => Promise.reject(new Error('boom'))).verify(task, 'x')).rejects.toThrow(
      /the rule threw for task "n\/1": Error: boom/,
    )
  })

  it("records the rule's name and version (not its body) and its settings in the fingerprint", () => {
    const isEven = (answer: string) => Number(answer) % 2 === 0
    expect(predicate(isEven)).toMatchObject({
      name: 'predicate',
      version: '1',
      settings: { rule: 'isEven', ruleVersion: '1', onThrow: 'error' },
    })
    expect(predicate((a) => a === 'x').settings.rule).toBe('anonymous')
    expect(predicate(isEven, { name: 'even', version: '2', settings: { base: 10 } }).settings).toEqual({
      base: 10,
      rule: 'even',
      ruleVersion: '2',
      onThrow: 'error',
    })
    // The body is not fingerprinted: two rules under one name and version look the same.
    expect(predicate(() => true, { name: 'r' }).settings).toEqual(predicate(() => false, { name: 'r' }).settings)
  })

  it('validates its arguments and rejects unknown options, naming the nearest', () => {
    expect(() => predicate('x => true' as never)).toThrow(
      'verifiers.predicate(fn): fn must be a function (answer, task) => boolean | { pass, reason }, got "x => true"',
    )
    expect(() => predicate(() => true, { nme: 'x' } as never)).toThrow(
      'verifiers.predicate(fn): unknown option "nme" (did you mean "name"?); valid options: name, onThrow, settings, version',
    )
    expect(() => predicate(() => true, { name: 'has space' })).toThrow(/name must be 1 to 100 letters, digits or/)
    expect(() => predicate(() => true, { version: '' })).toThrow(/version must be a non-empty string/)
    expect(() => predicate(() => true, { onThrow: 'ignore' as never })).toThrow(/onThrow must be 'error' or 'fail'/)
    expect(() => predicate(() => true, { settings: { rule: 'x' } })).toThrow(/settings\.rule is taken/)
    expect(() => predicate(() => true, { settings: { limit: Number.POSITIVE_INFINITY } })).toThrow(
      /settings\.limit must be a string, a finite number, a boolean or null/,
    )
    expect(() => predicate(() => true, { settings: { nested: {} as never } })).toThrow(/settings\.nested/)
  })

  it('passes exactly when a boolean rule says so, with a verdict the protocol accepts (seeded property)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 6 }),
        fc.boolean(),
        fc.option(fc.string({ maxLength: 6 }), { nil: undefined }),
        (answer, pass, reason) => {
          for (const result of [pass, { pass, reason }]) {
            const v = predicate(() => result)
            const verdict = v.verify(task, answer) as Verdict
            expect(verdict.pass).toBe(pass)
            expect(checkVerdict(v, verdict)).toEqual(verdict)
          }
        },
      ),
      { seed: 20261201, numRuns: 500 },
    )
  })
})
