import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { HAS_XMLLINT, xmllintJunit } from '../../test/export-schemas.js'
import { fakeRun } from '../../test/report-fixtures.js'
import type { RunSummary } from '../core/schemas.js'
import type { Thresholds } from '../protocol/cell-summary.js'
import { verifierUnstableLine } from '../protocol/verifier-unstable.js'
import { cellVerdict, runVerdict } from '../protocol/verdict.js'
import { junitXml, xmlEscape } from './junit.js'

const HOSTILE = 'x\u0000\u0007 ]]> <b>&amp;</b> "q" \'a\' \ud83d\ude00'

/** A run with a passing cell, cells that miss a threshold, and one that did not finish. */
function mixedRun(): RunSummary {
  const { summary } = fakeRun({
    benchmark: `toy ${HOSTILE}`,
    thresholds: (_actor, mode): Thresholds =>
      mode === 'binary' ? { seqAt: { 4: 0.99 } } : mode === 'verifier' ? { seqAt: { 2: 0.99, 4: 0.99 } } : {},
  })
  const cells = summary.benchmarks[0]!.cells.map((c, i) =>
    i === 0
      ? {
          ...c,
          verdict: 'fail' as const,
          thresholds: [
            ...c.thresholds,
            {
              metric: 'finished' as const,
              k: null,
              limit: 1,
              actual: null,
              pass: false,
              message: `the cell did not finish: Test timed out ${HOSTILE}`,
            },
          ],
        }
      : c,
  )
  return {
    ...summary,
    benchmarks: [
      { ...summary.benchmarks[0]!, cells },
      {
        name: 'second',
        file: 'evals/second.eval.ts',
        cells: fakeRun({ benchmark: 'second', thresholds: () => ({}) }).summary.benchmarks[0]!.cells,
      },
    ],
  }
}

/** A run whose second cell's verifier is known to be unstable (a reported flip and one in the run). */
function unstableRun(): RunSummary {
  const { summary } = fakeRun({ thresholds: () => ({}) })
  const cells = summary.benchmarks[0]!.cells.map((c, i) =>
    i === 1 ? { ...c, verifierUnstable: { inRun: ['t/1'], reported: ['t/2'] } } : c,
  )
  return { ...summary, benchmarks: [{ ...summary.benchmarks[0]!, cells }] }
}

const attribute = (xml: string, element: string, name: string): string[] =>
  [...xml.matchAll(new RegExp(`<${element}\\b[^>]*\\s${name}="([^"]*)"`, 'g'))].map((m) => m[1]!)

describe('junitXml', () => {
  it.skipIf(!HAS_XMLLINT)(
    'validates against the Ant JUnit XSD: passing, failing, unfinished and skipped cells, broken files, hostile text',
    async () => {
      const broken: RunSummary = {
        ...mixedRun(),
        loadErrors: [{ file: 'evals/broken.eval.ts', error: `SyntaxError ${HOSTILE}` }],
        notRun: [{ file: 'evals/x.eval.ts', benchmark: 'x', cellId: 'a · binary', reason: `no key ${HOSTILE}` }],
      }
      for (const summary of [fakeRun({ thresholds: () => ({}) }).summary, mixedRun(), unstableRun(), broken]) {
        const { valid, output } = await xmllintJunit(junitXml(summary))
        expect(valid, output).toBe(true)
      }
    },
  )

  it.skipIf(!HAS_XMLLINT)(
    'the XSD is a real check: a suite without its hostname, or a test case without its time, is rejected',
    async () => {
      const xml = junitXml(fakeRun().summary)
      expect((await xmllintJunit(xml.replace(/ hostname="[^"]*"/, ''))).valid).toBe(false)
      expect((await xmllintJunit(xml.replace(/(<testcase[^>]*) time="[^"]*"/, '$1'))).valid).toBe(false)
    },
  )

  it('one test case per cell, a failed cell failing once with each failed check listed once', () => {
    const summary = mixedRun()
    const xml = junitXml(summary)
    const [first, second] = summary.benchmarks
    expect(attribute(xml, 'testsuite', 'tests').map(Number)).toEqual([first!.cells.length, second!.cells.length])
    const verdicts = first!.cells.map((c) => cellVerdict(c))
    // The unfinished cell is an error (its one root cause); every other failed cell a failure.
    expect(attribute(xml, 'testsuite', 'errors').map(Number)).toEqual([1, 0])
    expect(attribute(xml, 'testsuite', 'failures').map(Number)).toEqual([
      verdicts.filter((v) => v.status === 'fail').length - 1,
      0,
    ])
    expect(xml.match(/<testcase /g)).toHaveLength(first!.cells.length + second!.cells.length)
    // Each failed check once: its message in its cell's failure text, nowhere else as a case.
    for (const v of verdicts)
      for (const c of v.failed) expect(xml.split(`- ${xmlEscape(c.message)}`).length - 1, c.message).toBe(1)
    expect(xml).not.toContain(' › ')
    const twoChecks = first!.cells.findIndex((_, i) => verdicts[i]!.failed.length === 2)
    expect(xml).toContain(`${xmlEscape(first!.cells[twoChecks]!.cellId)}: 2 checks failed`)
    expect(attribute(xml, 'property', 'value')[2]).toBe(String(verdicts.reduce((n, v) => n + v.failed.length, 0)))
  })

  it('a file that failed to load is a suite with one error, a cell that did not run a skipped case', () => {
    const summary: RunSummary = {
      ...mixedRun(),
      loadErrors: [{ file: 'evals/broken.eval.ts', error: 'SyntaxError: Unexpected token <' }],
      notRun: [
        { file: 'evals/second.eval.ts', benchmark: 'second', cellId: 'openai:gpt · binary', reason: 'no key' },
        { file: 'evals/third.eval.ts', benchmark: 'third', cellId: 'x · binary', reason: 'data absent' },
      ],
    }
    const xml = junitXml(summary)
    expect(attribute(xml, 'testsuite', 'name').slice(1)).toEqual(['second', 'third', 'evals/broken.eval.ts'])
    expect(attribute(xml, 'testsuite', 'skipped').map(Number)).toEqual([0, 1, 1, 0])
    expect(attribute(xml, 'testsuite', 'errors').map(Number).slice(1)).toEqual([0, 0, 1])
    expect(xml).toContain(
      '<testcase name="openai:gpt · binary" classname="second" time="0.000"><skipped message="did not run: no key"/>',
    )
    expect(xml).toContain(
      '<error message="evals/broken.eval.ts failed to load: SyntaxError: Unexpected token &lt;" type="seqk.loadError">',
    )
  })

  it('an all-errored cell is one error, one failed check, as every output counts it', () => {
    const { summary } = fakeRun({
      thresholds: () => ({ seqAt: { 2: 0.5 } }),
      errorFor: () => 'HTTP 500 from the server',
    })
    const v = runVerdict(summary)
    expect(v.failedChecks).toBe(v.cells.fail)
    const xml = junitXml(summary)
    expect(Number(attribute(xml, 'testsuite', 'errors')[0])).toBe(v.cells.fail)
    expect(Number(attribute(xml, 'testsuite', 'failures')[0])).toBe(0)
    expect(xml.match(/<error /g)).toHaveLength(v.cells.fail)
  })

  it("the counts are the verdict model's for any mix of cells, skipped cells and broken files", () => {
    const base = fakeRun({ thresholds: () => ({}) }).summary
    const cells = base.benchmarks[0]!.cells
    const threshold = (pass: boolean, metric: 'seqAt' | 'finished' | 'maxErrorRate') => ({
      metric,
      k: metric === 'seqAt' ? 2 : null,
      limit: metric === 'maxErrorRate' ? 0 : 0.5,
      actual: null,
      pass,
      message: `${metric} ${pass ? 'held' : 'missed'}`,
    })
    fc.assert(
      fc.property(
        fc.array(
          fc.array(fc.tuple(fc.boolean(), fc.constantFrom('seqAt', 'finished', 'maxErrorRate' as const)), {
            maxLength: 3,
          }),
          {
            minLength: cells.length,
            maxLength: cells.length,
          },
        ),
        fc.nat(2),
        fc.nat(2),
        (checks, broken, skipped) => {
          const summary: RunSummary = {
            ...base,
            benchmarks: [
              {
                ...base.benchmarks[0]!,
                cells: cells.map((c, i) => ({ ...c, thresholds: checks[i]!.map(([p, m]) => threshold(p, m)) })),
              },
            ],
            loadErrors: Array.from({ length: broken }, (_, i) => ({ file: `b${i}.eval.ts`, error: 'boom' })),
            notRun: Array.from({ length: skipped }, (_, i) => ({
              file: base.benchmarks[0]!.file,
              benchmark: base.benchmarks[0]!.name,
              cellId: `skipped ${i}`,
              reason: 'no key',
            })),
          }
          const v = runVerdict(summary)
          const xml = junitXml(summary)
          const sum = (name: string) => attribute(xml, 'testsuite', name).reduce((n, x) => n + Number(x), 0)
          expect(sum('failures') + sum('errors')).toBe(v.cells.fail + broken)
          expect(sum('skipped')).toBe(v.cells['not-run'])
          expect(sum('tests')).toBe(v.entries.length)
          const checked = [...xml.matchAll(/name="seqk.failedChecks" value="(\d+)"/g)].reduce(
            (n, m) => n + Number(m[1]),
            0,
          )
          expect(checked).toBe(v.failedChecks)
        },
      ),
      { seed: 42, numRuns: 200 },
    )
  })

  it('says a verifier is unstable as every other output does: the same sentence in system-out, the cell in a property', () => {
    const summary = unstableRun()
    const cell = summary.benchmarks[0]!.cells[1]!
    const line = verifierUnstableLine(cell)!
    expect(line).toMatch(/^verifier unstable, /)
    const xml = junitXml(summary)
    const out = /<system-out>([^<]*)<\/system-out>/.exec(xml)![1]!
    expect(out.split('\n')).toContain(xmlEscape(line))
    expect(attribute(xml, 'property', 'name')).toContain('seqk.verifierUnstable')
    expect(xml).toContain(`<property name="seqk.verifierUnstable" value="${xmlEscape(cell.cellId)}"/>`)
    // A run whose verifier is not known to be unstable says nothing of it.
    expect(junitXml(fakeRun({ thresholds: () => ({}) }).summary)).not.toMatch(
      /verifier unstable|seqk\.verifierUnstable/,
    )
  })

  it('escapes what XML cannot hold as text', () => {
    expect(xmlEscape('<a b="c">&\'\u0000')).toBe('&lt;a b=&quot;c&quot;&gt;&amp;&apos;\uFFFD')
    const xml = junitXml(mixedRun())
    // eslint-disable-next-line no-control-regex
    expect(xml).not.toMatch(/[\u0000-\u0008]/)
    expect(xml).not.toContain(']]>')
  })
})
