import { describe, expect, it } from 'vitest'
import type { RunSummary } from '../core/schemas.js'
import { fakeRun } from '../../test/report-fixtures.js'
import {
  escapeAnnotationData,
  escapeAnnotationProperty,
  githubAnnotations,
  markdownText,
  renderMarkdownSummary,
  revisionAnnotationLines,
  seqCurvesMermaid,
} from './markdown.js'
import { percent } from '../metrics/format.js'

const { summary } = fakeRun({
  failedScore: 0.5,
  actors: [
    { id: 'sim:a', skill: 0.3 },
    { id: 'sim:b', skill: 0.7 },
  ],
  thresholds: (actor, mode) =>
    mode === 'independent' ? { passAt: { 4: 0.1 } } : { seqAt: { 4: actor === 'sim:a' ? 0.99 : 0.1 } },
})
const cells = summary.benchmarks[0]!.cells

describe('renderMarkdownSummary', () => {
  const md = renderMarkdownSummary(summary, {
    gates: [{ cellId: 'sim:b · verifier', pass: false, message: 'Seq@4 fell 12.0 points below the baseline' }],
    changes: ['sim:b · verifier: Seq@4 90.0 → 80.0 (-10.0)'],
  })

  it('has a title with the overall verdict and one table row per cell', () => {
    expect(md).toMatch(/^## ❌ Seq@K run `20260101-000000-abcdef`/)
    expect(md).toContain(
      '| cell | metric | @1 | @2 | @3 | @4 | 95% CI @4 | Δ@4 | errors | tokens | cost | feedback | fingerprint | verdict |',
    )
    expect(md).toContain('| --- | --- | --: | --: | --: | --: | --: | --: | --: | --: | --: | --- | --- | --- |')
    const [main, scores] = md.split('**Score curve**')
    const rows = main!.split('\n').filter((l) => /^\| sim:/.test(l))
    expect(rows).toHaveLength(cells.length)
    // The fixture's failed verdicts score 0.5: the score curve is its own table, each row beside its solved rate.
    expect(scores).toContain('| cell | Score@1 | Score@2 | Score@3 | Score@4 | 95% CI @4 | solved @K |')
    for (const cell of cells) {
      const label = cell.protocol.kind === 'independent' ? 'Pass' : 'Seq'
      const at = cell.score!.at.map((v) => (v! * 100).toFixed(1)).join(' | ')
      expect(scores).toContain(`| ${cell.cellId} | ${at} |`)
      expect(scores).toMatch(new RegExp(`\\| ${label}@4 [0-9.]+ \\|`))
    }
    for (const cell of cells) {
      const row = rows.find((r) => r.startsWith(`| ${cell.cellId} |`))!
      const curve = cell.protocol.kind === 'independent' ? cell.passAt! : cell.seqAt
      expect(row).toContain(`| ${curve.map((v) => (v! * 100).toFixed(1)).join(' | ')} |`)
      expect(row).toContain(`\`${cell.fingerprint}\``)
    }
    expect(rows.find((r) => r.startsWith('| sim:a · verifier'))).toMatch(/❌ fail \(1\) \|$/)
    expect(rows.find((r) => r.startsWith('| sim:b · verifier'))).toMatch(/❌ fail \(1\) \|$/) // the gate
    expect(rows.find((r) => r.startsWith('| sim:b · binary'))).toMatch(/✅ pass \|$/)
  })

  it('lists threshold and gate verdicts, failures first, and the protocol line', () => {
    expect(md).toContain(
      'K=4 · 5 tasks × 2 repeats · history full · verifier python-tests v2 · prompt seqk-prompt/1 · budget not disclosed',
    )
    const list = md.split('\n').filter((l) => /^- [✅❌]/.test(l))
    expect(list[0]).toMatch(/^- ❌/)
    expect(list).toContain('- ❌ sim:b · verifier: Seq@4 fell 12.0 points below the baseline.')
    expect(md).toMatch(/<details open><summary>Thresholds and gates: 3 failed<\/summary>/)
    expect(md).toContain('## Since the last run\n\n- sim:b · verifier: Seq@4 90.0 → 80.0 (-10.0)')
  })

  it('ends with a Mermaid chart with one line per sequential cell and the line order', () => {
    const block = md.slice(md.indexOf('```mermaid'), md.indexOf('```', md.indexOf('```mermaid') + 3) + 3)
    expect(block).toContain('xychart-beta')
    expect(block).toContain('x-axis "attempt k" ["1", "2", "3", "4"]')
    expect(block).toContain('y-axis "solved (%)" 0 --> 100')
    const lines = block.split('\n').filter((l) => l.trim().startsWith('line ['))
    const sequential = cells.filter((c) => c.protocol.kind === 'sequential')
    expect(lines).toHaveLength(sequential.length)
    expect(lines[0]!.trim()).toBe(`line [${sequential[0]!.seqAt.map((v) => (v! * 100).toFixed(1)).join(', ')}]`)
    expect(block).toMatch(/plotColorPalette": "#3b82f6, #f97316, #22c55e, #a855f7"/)
    expect(md).toContain(
      `Lines: 🟦 ${sequential[0]!.cellId}, 🟧 ${sequential[1]!.cellId}, 🟩 ${sequential[2]!.cellId}, 🟪 ${sequential[3]!.cellId}`,
    )
  })

  it('passes when every cell and gate passes, and never calls a run that checked nothing a pass', () => {
    const ok = fakeRun({
      thresholds: (_actor, mode) => (mode === 'independent' ? { passAt: { 4: 0 } } : { seqAt: { 4: 0 } }),
    }).summary
    expect(renderMarkdownSummary(ok, { headingLevel: 3 })).toMatch(
      /^### ✅ Seq@K run `[^`]+`\n\n\d+ cells · all passed · /,
    )
    const none = renderMarkdownSummary(fakeRun({ thresholds: () => ({}) }).summary)
    expect(none).toMatch(/^## ➖ Seq@K run `[^`]+`\n\n\d+ cells · \d+ with no thresholds · /)
    expect(none).not.toMatch(/✅/)
  })

  it('keeps user text from breaking the table or injecting HTML', () => {
    expect(markdownText('a|b\nc <img src=x> & d')).toBe('a\\|b c &lt;img src=x&gt; &amp; d')
    const hostile = fakeRun({ actors: [{ id: 'x|<b>y</b>', skill: 0.5 }], modes: ['verifier'] }).summary
    const out = renderMarkdownSummary(hostile)
    expect(out).toContain('| x\\|&lt;b&gt;y&lt;/b&gt; · verifier |')
    expect(out).not.toContain('<b>')
  })
})

describe('seqCurvesMermaid', () => {
  it('names cells it cannot draw (budget disclosed: only Seq@K) and is empty without sequential cells', () => {
    const disclosed = fakeRun({ budgetDisclosed: true, modes: ['verifier'] }).summary.benchmarks[0]!.cells
    expect(disclosed[0]!.seqAt[0]).toBeNull()
    expect(seqCurvesMermaid(disclosed)).toBe('')
    const mixed = [
      ...cells.filter((c) => c.mode === 'verifier'),
      ...disclosed.map((c) => ({ ...c, cellId: 'told · verifier' })),
    ]
    expect(seqCurvesMermaid(mixed)).toContain(
      'Not drawn (a missing point, e.g. budget disclosed, or a smaller budget): told · verifier',
    )
    expect(seqCurvesMermaid(cells.filter((c) => c.mode === 'independent'))).toBe('')
  })

  it('keeps double quotes out of the title', () => {
    expect(seqCurvesMermaid(cells, 'a "b" c')).toContain(`title "a 'b' c"`)
  })
})

describe('githubAnnotations', () => {
  it('emits an ::error per failed threshold and gate, with the file and an escaped title', () => {
    const lines = githubAnnotations(summary, {
      gates: [{ cellId: 'sim:b · verifier', pass: false, message: 'below baseline' }],
    })
    const errors = lines.filter((l) => l.startsWith('::error '))
    expect(errors).toHaveLength(3)
    expect(errors[0]).toMatch(
      /^::error file=evals\/toy\.eval\.ts,title=seqk%3A toy benchmark › sim%3Aa · binary::Seq@4 = [\d.]+%25, below the required 99\.0%25/,
    )
    expect(errors[2]).toBe(
      '::error file=evals/toy.eval.ts,title=seqk%3A toy benchmark › sim%3Ab · verifier (gate)::below baseline',
    )
    for (const l of lines) expect(l).not.toMatch(/[\r\n]/)
  })

  it('warns when a threshold holds on the point estimate but not on the 95% interval, and on infrastructure errors', () => {
    const cell = cells.find((c) => c.cellId === 'sim:b · verifier')!
    const warned: RunSummary = {
      ...summary,
      benchmarks: [
        {
          ...summary.benchmarks[0]!,
          cells: [
            { ...cell, seqAtInterval: { ...cell.seqAtInterval, lo: 0.05 } },
            {
              ...cell,
              cellId: 'errs',
              errors: {
                ...cell.errors,
                count: 2,
                examples: [{ taskId: 't/1', repeat: 0, message: 'actor failed at attempt 1: 500\nInternal' }],
              },
            },
          ],
        },
      ],
    }
    const lines = githubAnnotations(warned)
    // `%` is escaped as `%25` in workflow commands.
    expect(lines[0]).toMatch(
      /^::warning .*::Seq@4 meets 0\.1 on the point estimate \([\d.]+%25\), but its 95%25 interval reaches 5\.0%25 \[fingerprint [0-9a-f]+\]$/,
    )
    expect(lines.at(-1)).toMatch(
      /::2 of 10 trajectories ended in an infrastructure error, e\.g\. actor failed at attempt 1: 500%0AInternal$/,
    )
  })

  it('escapes data and properties as GitHub requires', () => {
    expect(escapeAnnotationData('100% done\r\nnext')).toBe('100%25 done%0D%0Anext')
    expect(escapeAnnotationProperty('a: b, c%')).toBe('a%3A b%2C c%25')
  })
})

describe('revisionAnnotationLines', () => {
  it('gives one compact line per annotated cell, under a collapsed heading, and none without annotation', () => {
    const { summary } = fakeRun()
    const cells = summary.benchmarks[0]!.cells
    const lines = revisionAnnotationLines(cells)
    const annotated = cells.filter((c) => c.revisionAnnotation)
    expect(annotated.map((c) => c.mode)).toEqual(['verifier', 'verifier'])
    expect(lines).toHaveLength(annotated.length)
    const a = annotated[0]!.revisionAnnotation!
    expect(lines[0]).toBe(
      `- sim:careful · verifier (${a.annotated} revisions, derived/1): unhelpful / some / all ${percent(a.classes.unhelpful.share.point)}% / 0.0% / ${percent(a.classes.all.share.point)}%; next attempt passed 0.0% / — / 100.0%`,
    )
    const md = renderMarkdownSummary(summary)
    expect(md).toContain(
      '<details><summary>Did the revisions address the feedback? (unhelpful: none of its requests; some; all)</summary>\n\n- sim:careful · verifier (',
    )
    const plain = fakeRun({ requests: false }).summary
    expect(revisionAnnotationLines(plain.benchmarks[0]!.cells)).toEqual([])
    expect(renderMarkdownSummary(plain)).not.toContain('Did the revisions address the feedback?')
  })
})
