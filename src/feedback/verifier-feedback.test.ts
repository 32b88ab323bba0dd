import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Diagnostics, TestOutcome, Verdict } from '../verifiers/verifier.js'
import { binary } from './binary.js'
import { CUT_OFF, renderDiagnostics, renderVerifierFeedback, verifierFeedback } from './verifier-feedback.js'

const HARD_CODING = 'Use this feedback to fix the general logic. Do not hard-code these cases.'

const failing = (index: number, extra: Partial<TestOutcome> = {}): TestOutcome => ({
  index,
  source: `assert f(${index}) == ${index * 2}`,
  pass: false,
  call: `f(${index})`,
  expected: String(index * 2),
  actual: String(index * 2 + 1),
  ...extra,
})
const passing = (index: number): TestOutcome => ({
  index,
  source: `assert f(${index}) == ${index * 2}`,
  pass: true,
  call: `f(${index})`,
  expected: String(index * 2),
  actual: String(index * 2),
})

const failed = (tests: TestOutcome[], summary = 'some tests failed'): Diagnostics => ({
  outcome: 'failed',
  summary,
  tests,
})

describe('renderDiagnostics: failing tests', () => {
  it('lists each failing test as test_N (N = index + 1) with call, expected and got', () => {
    const text = renderDiagnostics(failed([passing(0), failing(1), failing(3)]), undefined)
    expect(text).toBe(
      [
        'Failed test details:',
        '- test_2 function call: f(1)',
        '  expected: 2',
        '  got: 3',
        '- test_4 function call: f(3)',
        '  expected: 6',
        '  got: 7',
        HARD_CODING,
      ].join('\n'),
    )
    expect(text).not.toContain('test_1')
  })

  it('shows the exception as "got" when the call raised, and falls back when nothing is known', () => {
    const raised = renderDiagnostics(
      failed([failing(0, { actual: undefined, error: "NameError: name 'g' is not defined" })]),
      undefined,
    )
    expect(raised).toContain("  got: NameError: name 'g' is not defined")
    const unknown = renderDiagnostics(failed([failing(0, { actual: undefined, expected: undefined })]), undefined)
    expect(unknown).toContain('  expected: ?\n  got: (nothing)')
  })

  it('shows the source and error of a test that is not a call comparison', () => {
    const text = renderDiagnostics(
      failed([{ index: 2, source: 'assert is_sorted(out)', pass: false, error: 'AssertionError' }]),
      undefined,
    )
    expect(text).toContain('- test_3: assert is_sorted(out)\n  error: AssertionError')
    expect(renderDiagnostics(failed([{ index: 0, source: 'assert ok()', pass: false }]), undefined)).toContain(
      '  error: failed',
    )
  })

  it('caps the number of tests listed and says how many more failed', () => {
    const tests = Array.from({ length: 8 }, (_, i) => failing(i))
    const text = renderDiagnostics(failed(tests), undefined, { maxTests: 3 })
    expect(text.match(/^- test_\d+ function call/gm)).toHaveLength(3)
    expect(text).toContain('- test_3 function call')
    expect(text).not.toContain('test_4')
    expect(text).toContain('- … and 5 more failing tests')
    // Default cap: 5.
    expect(renderDiagnostics(failed(tests), undefined).match(/^- test_\d+ function call/gm)).toHaveLength(5)
  })

  it('falls back to the summary when nothing specific failed', () => {
    expect(renderDiagnostics({ outcome: 'failed', summary: 'wrong output format' }, undefined)).toBe(
      'wrong output format',
    )
    expect(renderDiagnostics({ outcome: 'failed', summary: '' }, undefined)).toBe('Your answer failed verification.')
  })
})

describe('renderDiagnostics: other outcomes', () => {
  it('renders a load error with its message', () => {
    const text = renderDiagnostics(
      { outcome: 'load-error', summary: 'code did not load', error: 'SyntaxError: invalid syntax (line 3)' },
      undefined,
    )
    // No "do not hard-code these cases" after a load error: there are no cases to see.
    expect(text).toBe(['Your code failed to load:', 'SyntaxError: invalid syntax (line 3)'].join('\n'))
    expect(renderDiagnostics({ outcome: 'load-error', summary: 'ImportError: numpy' }, undefined)).toContain(
      'Your code failed to load:\nImportError: numpy',
    )
  })

  it('renders a timeout, with the call that did not return and what passed before it', () => {
    expect(renderDiagnostics({ outcome: 'timeout', summary: 'killed after 3000 ms' }, undefined)).toBe(
      'Your code did not finish in time (killed after 3000 ms).',
    )
    const partial = renderDiagnostics(
      {
        outcome: 'timeout',
        summary: 'timed out after 3000 ms in the call f(10**9)',
        tests: [
          { index: 0, source: 'assert f(1) == 1', pass: true },
          {
            index: 1,
            source: 'assert f(10**9) == 3',
            pass: false,
            error: 'timed out after 3000 ms in the call f(10**9)',
          },
        ],
      },
      undefined,
    )
    expect(partial).toBe(
      'Your code did not finish in time (timed out after 3000 ms in the call f(10**9)).\n1 of 2 tests passed before that.',
    )
  })

  it('says first that an answer cut off by the token limit is incomplete', () => {
    const text = renderDiagnostics(
      {
        outcome: 'load-error',
        summary: 'code did not load',
        error: "SyntaxError: '(' was never closed (candidate line 3)",
      },
      undefined,
      {},
      'length',
    )
    expect(text.split('\n')[0]).toBe(CUT_OFF)
    expect(renderDiagnostics({ outcome: 'load-error', summary: 'x', error: 'y' }, undefined, {}, 'stop')).not.toContain(
      CUT_OFF,
    )
  })

  it('renders a missing answer', () => {
    expect(renderDiagnostics({ outcome: 'no-answer', summary: 'no python code block found' }, undefined)).toBe(
      'No answer could be extracted from your reply.\nno python code block found',
    )
  })

  it('lists unmet criteria with their reasons, leaving out met ones', () => {
    const text = renderDiagnostics({ outcome: 'failed', summary: '2 of 3 criteria unmet' }, [
      { text: 'Mentions the dosage', met: false, reason: 'no dosage given' },
      { text: 'Is polite', met: true },
      { text: 'Cites a source', met: false },
    ])
    expect(text).toBe(['Unmet criteria:', '- Mentions the dosage (no dosage given)', '- Cites a source'].join('\n'))
  })
})

describe('renderDiagnostics: length cap', () => {
  const huge = failed([failing(0, { actual: `'${'x'.repeat(5000)}'` })])

  it('cuts a huge repr and says so', () => {
    const text = renderDiagnostics(huge, undefined, { maxChars: 300 })
    expect(text.startsWith('Failed test details:\n- test_1 function call: f(0)')).toBe(true)
    expect(text.endsWith('… (feedback truncated)')).toBe(true)
    expect(text.length).toBeLessThan(400)
  })

  it('leaves a short text alone', () => {
    const text = renderDiagnostics(failed([failing(0)]), undefined, { maxChars: 2000 })
    expect(text).not.toContain('truncated')
  })

  // BUG (verifier-feedback.ts:59): the text is cut to maxChars - 20 characters and then a 23-char
  // marker is appended, so the result is maxChars + 3 long; the option promises at most maxChars.
  it('never exceeds maxChars (default 2000)', () => {
    expect(renderDiagnostics(huge, undefined).length).toBeLessThanOrEqual(2000)
    fc.assert(
      fc.property(fc.integer({ min: 40, max: 3000 }), (maxChars) => {
        expect(renderDiagnostics(huge, undefined, { maxChars }).length).toBeLessThanOrEqual(maxChars)
      }),
      { seed: 42 },
    )
  })
})

describe('verifierFeedback', () => {
  it('renders the verdict diagnostics and criteria as verifier feedback', async () => {
    const verdict: Verdict = {
      pass: false,
      diagnostics: failed([failing(0)]),
      criteria: [{ id: 'c1', text: 'Handles empty input', met: false }],
    }
    const mode = verifierFeedback({ maxTests: 2 })
    const feedback = await mode.render({
      task: { id: 't', prompt: 'p' },
      attempt: 1,
      repeat: 0,
      answer: 'a',
      verdict,
      history: [],
    })
    expect(feedback.kind).toBe('verifier')
    expect(feedback.text).toContain('Failed test details:\n- test_1 function call: f(0)')
    expect(feedback.text).toContain('Unmet criteria:\n- Handles empty input')
  })

  it('exposes its caps as settings, with the defaults', () => {
    expect(verifierFeedback()).toMatchObject({
      kind: 'verifier',
      name: 'verifier',
      version: '2',
      settings: { maxTests: 5, maxChars: 2000 },
    })
    expect(verifierFeedback({ maxTests: 1, maxChars: 99 }).settings).toEqual({ maxTests: 1, maxChars: 99 })
  })

  it('rejects unknown options, naming the nearest valid one, and bounds both caps', () => {
    expect(() => verifierFeedback({ maxTest: 3 } as never)).toThrow(
      'feedback.verifier(): unknown option "maxTest" (did you mean "maxTests"?); valid options: maxChars, maxTests',
    )
    expect(() => verifierFeedback({ maxTests: 101 })).toThrow(
      'feedback.verifier(): maxTests must be an integer from 0 to 100, got 101',
    )
    expect(() => verifierFeedback({ maxChars: 1e9 })).toThrow(
      'feedback.verifier(): maxChars must be an integer from 40 to 100000, got 1000000000',
    )
    expect(() => verifierFeedback({ maxChars: 39 })).toThrow(/maxChars must be an integer from 40/)
    expect(() => verifierFeedback({ maxTests: 2.5 })).toThrow(/maxTests must be an integer/)
    expect(() => verifierFeedback({ maxTests: '5' as never })).toThrow(/maxTests must be an integer/)
    expect(verifierFeedback({ maxTests: 0, maxChars: 100_000 }).settings).toEqual({ maxTests: 0, maxChars: 100_000 })
  })

  it('applies its options when rendering', async () => {
    const verdict: Verdict = { pass: false, diagnostics: failed([failing(0), failing(1), failing(2)]) }
    const { text } = await verifierFeedback({ maxTests: 1 }).render({
      task: { id: 't', prompt: 'p' },
      attempt: 1,
      repeat: 0,
      answer: 'a',
      verdict,
      history: [],
    })
    expect(text).toContain('- … and 2 more failing tests')
  })
})

describe('renderVerifierFeedback: the requests the text names', () => {
  /** The ids a reader can see in the text: each `test_N` (index N − 1) and each criterion line shown. */
  const shownTests = (text: string) => [...text.matchAll(/^- test_(\d+)/gm)].map((m) => `test:${Number(m[1]) - 1}`)

  it('names each listed failing test by its TestOutcome index, in the order shown', () => {
    const rendered = renderVerifierFeedback(failed([passing(0), failing(1), failing(3)]), undefined)
    expect(rendered.requests).toEqual(['test:1', 'test:3'])
    expect(rendered.text).toBe(renderDiagnostics(failed([passing(0), failing(1), failing(3)]), undefined))
  })

  it('leaves out the failing tests beyond maxTests: "… and 2 more" names none of them', () => {
    const rendered = renderVerifierFeedback(failed([failing(0), failing(1), failing(2), failing(3)]), undefined, {
      maxTests: 2,
    })
    expect(rendered.text).toContain('- … and 2 more failing tests')
    expect(rendered.requests).toEqual(['test:0', 'test:1'])
    expect(renderVerifierFeedback(failed([failing(0)]), undefined, { maxTests: 0 }).requests).toEqual([])
  })

  it('names unmet criteria (and met penalties) by id, not met or satisfied ones', () => {
    const rendered = renderVerifierFeedback({ outcome: 'failed', summary: '' }, [
      { id: 'c1', text: 'Mentions the dosage', met: false },
      { id: 'c2', text: 'Is polite', met: true },
      { id: 'c3', text: 'Insults the user', met: true, points: -5 },
      { id: 'c4', text: 'Swears', met: false, points: -5 },
    ])
    expect(rendered.text).toBe(['Unmet criteria:', '- Mentions the dosage', '- Violated: Insults the user'].join('\n'))
    expect(rendered.requests).toEqual(['criterion:c1', 'criterion:c3'])
  })

  it('names nothing for a load error, a timeout or no answer: no test or criterion is shown', () => {
    expect(
      renderVerifierFeedback(
        { outcome: 'load-error', summary: 'x', error: 'SyntaxError', tests: [failing(0)] },
        undefined,
      ).requests,
    ).toEqual([])
    expect(
      renderVerifierFeedback({ outcome: 'timeout', summary: '5 s', tests: [passing(0), failing(1)] }, undefined)
        .requests,
    ).toEqual([])
    expect(renderVerifierFeedback({ outcome: 'no-answer', summary: 'no code' }, undefined).requests).toEqual([])
  })

  it('under maxChars, names a test only if its name survives the cut', () => {
    const long = (i: number) => failing(i, { actual: `'${'x'.repeat(150)}'` })
    const rendered = renderVerifierFeedback(failed([long(0), long(1), long(2), long(3)]), undefined, { maxChars: 400 })
    expect(rendered.text).toContain('(feedback truncated)')
    expect(rendered.requests).toEqual(shownTests(rendered.text))
    expect(rendered.requests.length).toBeLessThan(4)
  })

  it('for any tests, caps and cut, the requests are exactly the tests whose name the text shows', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ pass: fc.boolean(), width: fc.integer({ min: 0, max: 300 }) }), { maxLength: 12 }),
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 40, max: 3000 }),
        (specs, maxTests, maxChars) => {
          const tests = specs.map((t, i) => (t.pass ? passing(i) : failing(i, { actual: `'${'y'.repeat(t.width)}'` })))
          const rendered = renderVerifierFeedback(failed(tests), undefined, { maxTests, maxChars })
          expect(rendered.requests).toEqual(shownTests(rendered.text))
        },
      ),
      { seed: 42 },
    )
  })

  it('verifierFeedback() returns them on its Feedback; binary feedback has none', async () => {
    const verdict: Verdict = {
      pass: false,
      diagnostics: failed([failing(0), failing(2)]),
      criteria: [{ id: 'c1', text: 'Handles empty input', met: false }],
    }
    const feedback = await verifierFeedback().render({
      task: { id: 't', prompt: 'p' },
      attempt: 1,
      repeat: 0,
      answer: 'a',
      verdict,
      history: [],
    })
    expect(feedback.requests).toEqual(['test:0', 'test:2', 'criterion:c1'])
    expect(
      binary().render({ task: { id: 't', prompt: 'p' }, attempt: 1, repeat: 0, answer: 'a', verdict, history: [] }),
    ).not.toHaveProperty('requests')
  })
})
