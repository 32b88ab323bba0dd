import { describe, expect, it } from 'vitest'
import { HAS_XMLLINT, xmllintJunit } from '../../test/export-schemas.js'
import { fakeRun } from '../../test/report-fixtures.js'
import type { RunSummary } from '../core/schemas.js'
import type { Thresholds } from '../protocol/cell-summary.js'
import { verifierUnstableLine } from '../protocol/verifier-unstable.js'
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
    'validates against the Ant JUnit XSD: passing, failing and unfinished cells, hostile names and messages',
    async () => {
      for (const summary of [fakeRun({ thresholds: () => ({}) }).summary, mixedRun(), unstableRun()]) {
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

  it('one test case per cell and one per failed check; the counts add up', () => {
    const summary = mixedRun()
    const xml = junitXml(summary)
    const [first, second] = summary.benchmarks
    const failedChecks = first!.cells.flatMap((c) => c.thresholds.filter((t) => !t.pass))
    expect(attribute(xml, 'testsuite', 'tests').map(Number)).toEqual([
      first!.cells.length + failedChecks.length,
      second!.cells.length,
    ])
    const failing = first!.cells.filter((c) => c.thresholds.some((t) => !t.pass))
    // The unfinished cell is an error (its case and its check's case); every other miss a failure.
    expect(attribute(xml, 'testsuite', 'errors').map(Number)).toEqual([2, 0])
    expect(attribute(xml, 'testsuite', 'failures').map(Number)).toEqual([
      failing.length - 1 + failedChecks.length - 1,
      0,
    ])
    expect(xml).toContain(`name="${xmlEscape(`${first!.cells[1]!.cellId} › Seq@2 >= 99.0%`)}"`)
    expect(xml.match(/<testcase /g)).toHaveLength(first!.cells.length + failedChecks.length + second!.cells.length)
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
