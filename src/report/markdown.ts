/**
 * GitHub output: a Markdown run summary (for `GITHUB_STEP_SUMMARY` and a pull-request comment)
 * and workflow-command annotations for failed thresholds. Pure functions over a RunSummary.
 */
import { statisticsRows } from '../protocol/statistics/index.js'
import { heldOutGapLine } from '../protocol/held-out-gap.js'
import { extendedLine } from '../protocol/resume.js'
import { verifierUnstableLine } from '../protocol/verifier-unstable.js'
import type { CellSummary, RunSummary, SubjectComparison } from '../core/schemas.js'
import { sandboxText } from './data.js'
import { annotatorOf, annotatorText } from '../analysis/revision-annotation.js'
import { rankingChanges, spendingLine } from './table.js'
import { percent, percentText, plural } from '../metrics/format.js'
import { cellVerdict, runCountsText, summaryVerdict, type CellVerdict } from '../protocol/verdict.js'
import { cellColumns, curveOf, unknownUsageLine, verdictValue } from './columns.js'
import { COMPARISON_HEADERS, COMPARISON_NUMERIC, comparisonDetail, comparisonValues } from './subject-comparisons.js'
import { robustnessMarkdown, ROBUSTNESS_TITLE } from './robustness-section.js'
import { faultRecoveryLines } from './fault-recovery-section.js'
import { binaryScoreLine, disclosedScoreLine, SCORE_CURVE_MEANING, scoreRows } from './score-section.js'

/** An extra pass/fail verdict on a cell, e.g. a baseline comparison made by a gate. */
export interface GateResult {
  cellId: string
  pass: boolean
  message: string
  /** Restricts the gate to one benchmark when cell ids repeat across benchmarks. */
  benchmark?: string
}

/** The options of the Markdown summary (the pull-request comment). */
export interface MarkdownOptions {
  gates?: readonly GateResult[]
  /** Lines shown under a "Since the last run" heading (`condenseChanges(cellChanges(history, summary))`). */
  changes?: readonly string[]
  /** Heading level of the run title (default 2: `##`). */
  headingLevel?: number
  /** A link to the full HTML report (e.g. a workflow artifact). */
  reportUrl?: string
}

/**
 * Text for one Markdown table cell or list item: `|` would end the cell, a newline the row, and
 * `<`/`&` could start HTML that GitHub renders; backticks and `*`/`_` stay (ids rarely contain
 * them, and escaping them would show the backslashes in code spans).
 */
export function markdownText(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '\\|')
    .replace(/\r?\n|\r/g, ' ')
}

/** Text inside a Mermaid double-quoted string: Mermaid has no escape for `"`, so it becomes `'`. */
function mermaidText(text: string): string {
  return text.replace(/"/g, "'").replace(/[\r\n]+/g, ' ')
}

/** The protocol in one line: what a benchmark's numbers are only defined together with. */
function protocolLine(cells: readonly CellSummary[]): string {
  const first = cells[0]!
  const p = first.protocol
  const history =
    [...new Set(cells.map((c) => c.protocol.history?.name).filter((h): h is string => h !== undefined))].join(', ') ||
    '—'
  const K = Math.max(...cells.map((c) => c.budget))
  return [
    `K=${K}`,
    `${plural(first.tasks, 'task')} × ${plural(first.repeats, 'repeat')}`,
    `history ${history}`,
    `verifier ${p.verifier.name} v${p.verifier.version}`,
    `prompt ${p.promptBuilder}`,
    cells.some((c) => c.protocol.budgetDisclosed)
      ? 'budget disclosed to the actor (only Seq@K valid)'
      : 'budget not disclosed',
    sandboxText(cells),
  ]
    .filter((part) => part !== '')
    .join(' · ')
}

/** The eight colours of the Mermaid chart, matched to the emoji squares that name them below it. */
const MERMAID_COLOURS: readonly { hex: string; emoji: string }[] = [
  { hex: '#3b82f6', emoji: '🟦' },
  { hex: '#f97316', emoji: '🟧' },
  { hex: '#22c55e', emoji: '🟩' },
  { hex: '#a855f7', emoji: '🟪' },
  { hex: '#ef4444', emoji: '🟥' },
  { hex: '#92400e', emoji: '🟫' },
  { hex: '#eab308', emoji: '🟨' },
  { hex: '#111827', emoji: '⬛' },
]

/**
 * A Mermaid `xychart-beta` of the Seq@k curves (one `line` per sequential cell, k = 1..K, 0–100%),
 * followed by the line order, since xychart has no legend. Cells with a missing point (budget
 * disclosed, nothing measured) cannot be drawn as a line and are named instead. Empty when no
 * sequential cell has a full curve.
 *
 * @example
 * seqCurvesMermaid(summary.benchmarks[0].cells)
 * // => '```mermaid\nxychart-beta\n  title "Seq@k (%)"\n  …\n```\n\nLines: 🟦 simulated:reviser · binary, …'
 */
export function seqCurvesMermaid(cells: readonly CellSummary[], title = 'Seq@k (%)'): string {
  const sequential = cells.filter((c) => c.protocol.kind === 'sequential')
  if (sequential.length === 0) return ''
  // One x-axis for all lines: cells with a smaller budget are named rather than padded.
  const K = Math.max(...sequential.map((c) => c.budget))
  const drawable = sequential.filter((c) => c.seqAt.length === K && c.seqAt.every((v) => v !== null))
  const skipped = sequential.filter((c) => !drawable.includes(c))
  if (drawable.length === 0) return ''
  const colour = (i: number) => MERMAID_COLOURS[i % MERMAID_COLOURS.length]!
  const palette = drawable.map((_, i) => colour(i).hex).join(', ')
  const lines = [
    '```mermaid',
    `%%{init: {"themeVariables": {"xyChart": {"plotColorPalette": "${palette}"}}}}%%`,
    'xychart-beta',
    `  title "${mermaidText(title)}"`,
    `  x-axis "attempt k" [${Array.from({ length: K }, (_, i) => `"${i + 1}"`).join(', ')}]`,
    '  y-axis "solved (%)" 0 --> 100',
    ...drawable.map((c) => `  line [${c.seqAt.map((v) => percent(v ?? 0)).join(', ')}]`),
    '```',
    '',
    `Lines: ${drawable.map((c, i) => `${colour(i).emoji} ${markdownText(c.cellId)}`).join(', ')}${drawable.length > MERMAID_COLOURS.length ? ' (colours repeat after eight lines)' : ''}`,
  ]
  if (skipped.length > 0)
    lines.push(
      '',
      `Not drawn (a missing point, e.g. budget disclosed, or a smaller budget): ${skipped.map((c) => markdownText(c.cellId)).join(', ')}`,
    )
  return lines.join('\n')
}

/**
 * One line per cell whose revisions were annotated (paper §5.2.2, Figure 5b): the share of its
 * revisions in each class and each class's next-attempt success, in %; the intervals are in
 * summary.json and the HTML report. Empty when no cell was annotated.
 *
 * @example
 * revisionAnnotationLines(cells)
 * // => ['- simulated:one-shot · verifier (37 revisions, derived/1): unhelpful / some / all 29.7% / 32.4% / 37.8%; next attempt passed 0.0% / — / 64.3%']
 */
export function revisionAnnotationLines(cells: readonly CellSummary[]): string[] {
  return cells.flatMap((cell) => {
    const a = cell.revisionAnnotation
    if (!a || a.annotated === 0) return []
    const { unhelpful, some, all } = a.classes
    const success = (k: typeof all) => (k.revisions === 0 ? '—' : percentText(k.success.point))
    const count = a.sampled
      ? `a sample of ${a.annotated} of ${a.annotatable} revisions`
      : `${a.annotated} revision${a.annotated === 1 ? '' : 's'}`
    return [
      `- ${markdownText(cell.cellId)} (${count}, ${markdownText(annotatorText(annotatorOf(a)))}): unhelpful / some / all ${percentText(unhelpful.share.point)} / ${percentText(some.share.point)} / ${percentText(all.share.point)}; next attempt passed ${success(unhelpful)} / ${success(some)} / ${success(all)}`,
    ]
  })
}

function gatesFor(benchmark: string, cells: readonly CellSummary[], gates: readonly GateResult[]): GateResult[] {
  const ids = new Set(cells.map((c) => c.cellId))
  return gates.filter((g) => ids.has(g.cellId) && (g.benchmark === undefined || g.benchmark === benchmark))
}

/**
 * Text as a sentence of a list or a paragraph: its first letter upper-case (unless it starts with
 * an identifier such as `Seq@5`), ending with a full stop, so items never run into each other.
 *
 * @example
 * sentence('tasks that got worse: a, b') // => 'Tasks that got worse: a, b.'
 */
export function sentence(text: string): string {
  const trimmed = text.trim()
  if (trimmed === '') return trimmed
  const first = /^[a-z][a-z ]/.test(trimmed) ? trimmed[0]!.toUpperCase() + trimmed.slice(1) : trimmed
  return /[.!?…]$/.test(first) ? first : `${first}.`
}

const STATUS_MARK: Readonly<Record<string, string>> = {
  pass: '✅',
  fail: '❌',
  'no-thresholds': '➖',
  'not-run': '⏭️',
  shard: '🧩',
}

/** A cell's verdict as the Markdown table shows it: the same words and count as every other output, with a mark. */
function verdictCell(cell: CellSummary, verdict: CellVerdict, extraFailed: number): string {
  const v = verdictValue(cell, verdict)
  if (extraFailed > 0) return `❌ fail (${verdict.failed.length + extraFailed})`
  // A pass whose baseline gate could not see the drop that matters is never a bare ✅.
  if (verdict.status === 'pass' && verdict.passed.some((c) => c.caution)) return `⚠️ ${v.text} (gate underpowered)`
  return `${STATUS_MARK[verdict.status] ?? ''} ${v.text}`.trim()
}

/**
 * The run as GitHub Markdown: the run's verdict and counts (from the verdict model every output
 * shares), the files that failed to load, then per benchmark the protocol, a table of cells
 * (metric, @1..@K, 95% interval at K, gain, errors, tokens, cost, feedback, fingerprint,
 * verdict), the failed and passed checks, a line per cell whose revisions were annotated, ranking
 * changes and a Mermaid chart of the Seq@k curves. `gates` adds checks of the caller's own.
 *
 * @example
 * appendFileSync(process.env.GITHUB_STEP_SUMMARY!, renderMarkdownSummary(summary, { changes }))
 */
export function renderMarkdownSummary(summary: RunSummary, options: MarkdownOptions = {}): string {
  const level = Math.min(Math.max(options.headingLevel ?? 2, 1), 5)
  const h = (n: number) => '#'.repeat(Math.min(level + n, 6))
  const gates = options.gates ?? []
  const failedGates = gates.filter((g) => !g.pass).length
  const verdict = summaryVerdict(summary)
  const status = failedGates > 0 ? 'fail' : verdict.status
  const out: string[] = []
  // A run that passed on a gate too small to see the drop that matters is never headed by a bare ✅.
  const cautious =
    status === 'pass' &&
    summary.benchmarks.some((b) => b.cells.some((c) => cellVerdict(c).passed.some((check) => check.caution)))
  out.push(`${h(0)} ${cautious ? '⚠️' : STATUS_MARK[status]} Seq@K run \`${summary.runId}\``, '')
  const counts = [runCountsText(verdict)]
  if (gates.length > 0)
    counts.push(
      failedGates > 0 ? `**${failedGates} of ${gates.length} gates failed**` : `${plural(gates.length, 'gate')} passed`,
    )
  out.push(
    `${markdownText(counts.join(' · '))} · ${summary.createdAt}${options.reportUrl ? ` · [full report](${options.reportUrl})` : ''}`,
    '',
  )
  out.push('_A Seq@K number is only defined together with its protocol: the fingerprint column names it._', '')

  if (verdict.loadErrors.length > 0) {
    out.push(
      `${h(1)} Files that failed to load`,
      '',
      ...verdict.loadErrors.map((e) => `- ❌ \`${markdownText(e.file)}\`: ${markdownText(sentence(e.error))}`),
      '',
    )
  }
  if (verdict.problems.length > 0) out.push(...verdict.problems.map((p) => `- ❌ ${markdownText(sentence(p))}`), '')

  for (const b of summary.benchmarks) {
    if (b.cells.length === 0) continue
    const K = Math.max(...b.cells.map((c) => c.budget))
    const verdicts = b.cells.map((c) => cellVerdict(c))
    out.push(`${h(1)} ${markdownText(b.name)}`, '')
    out.push(`\`${markdownText(b.file)}\` · ${markdownText(protocolLine(b.cells))} · rates in %`, '')
    const columns = cellColumns(K).filter((c) => c.outputs.includes('markdown'))
    out.push(`| ${columns.map((c) => c.header).join(' | ')} |`)
    out.push(`|${columns.map((c) => (c.numeric ? ' --: ' : ' --- ')).join('|')}|`)
    for (const [i, cell] of b.cells.entries()) {
      const extra = gatesFor(b.name, [cell], gates).filter((g) => !g.pass).length
      const row = columns.map((c) => {
        if (c.id === 'verdict') return verdictCell(cell, verdicts[i]!, extra)
        const text = markdownText(c.value(cell, verdicts[i]!).text)
        return c.id === 'fingerprint' ? `\`${text}\`` : text
      })
      out.push(`| ${row.join(' | ')} |`)
    }
    out.push('')
    out.push(...scoreCurveMarkdown(b.cells))

    // Each check once, failures first: a failed gate is one item, its further findings under it.
    const items: { pass: boolean; lines: string[] }[] = []
    for (const [i, cell] of b.cells.entries()) {
      const v = verdicts[i]!
      for (const c of v.failed)
        items.push({
          pass: false,
          lines: [
            `- ❌ ${markdownText(cell.cellId)}: ${markdownText(sentence(c.message))}`,
            ...[...c.notes, ...c.details].map((d) => `  - ${markdownText(sentence(d))}`),
          ],
        })
      for (const c of v.passed)
        items.push({
          pass: true,
          lines: [
            `- ${c.caution ? '⚠️' : '✅'} ${markdownText(cell.cellId)}: ${markdownText(sentence(c.message))}`,
            ...c.notes.map((d) => `  - ${markdownText(sentence(d))}`),
          ],
        })
    }
    for (const g of gatesFor(b.name, b.cells, gates))
      items.push({
        pass: g.pass,
        lines: [`- ${g.pass ? '✅' : '❌'} ${markdownText(g.cellId)}: ${markdownText(sentence(g.message))}`],
      })
    if (items.length > 0) {
      const failedChecks = items.filter((c) => !c.pass).length
      out.push(
        `<details${failedChecks > 0 ? ' open' : ''}><summary>Thresholds and gates: ${failedChecks === 0 ? 'all passed' : `${failedChecks} failed`}</summary>`,
        '',
      )
      for (const item of [...items].sort((x, y) => Number(x.pass) - Number(y.pass))) out.push(...item.lines)
      out.push('', '</details>', '')
    }

    // The variants of the subject, compared pairwise on the same tasks.
    const variants = subjectComparisonMarkdown((summary.variantComparisons ?? []).filter((r) => r.benchmark === b.name))
    if (variants.length > 0)
      out.push('Variants compared, B − A paired over the common tasks (points, 95% CI):', '', ...variants, '')

    for (const line of faultRecoveryLines(b.cells)) out.push(`${markdownText(line)}`, '')
    // Each rewording of the prompt and each faulted agent against its original, on the same tasks.
    const robustness = robustnessMarkdown(
      (summary.robustness ?? []).filter((r) => r.benchmark === b.name),
      markdownText,
    )
    if (robustness.length > 0) out.push(`${ROBUSTNESS_TITLE.replace(/^r/, 'R')}`, '', ...robustness, '')

    const revisions = revisionAnnotationLines(b.cells)
    if (revisions.length > 0)
      out.push(
        '<details><summary>Did the revisions address the feedback? (unhelpful: none of its requests; some; all)</summary>',
        '',
        ...revisions,
        '',
        '</details>',
        '',
      )

    // Every registered statistic of the cells (summary.json `statistics`), folded: one row per cell.
    const statistics = statisticsRows(b.cells)
    if (statistics)
      out.push(
        '<details><summary>Statistics (in % unless a definition says otherwise; [95% CI], n: what it is over)</summary>',
        '',
        `| ${statistics.header.map(markdownText).join(' | ')} |`,
        `|${statistics.header.map((_, i) => (i === 0 ? ' --- ' : ' --: ')).join('|')}|`,
        ...statistics.rows.map((row) => `| ${row.map(markdownText).join(' | ')} |`),
        '',
        '</details>',
        '',
      )

    for (const line of b.cells.map(heldOutGapLine)) if (line) out.push(markdownText(sentence(line)), '')
    for (const line of b.cells.map(extendedLine)) if (line) out.push(markdownText(sentence(line)), '')
    for (const line of b.cells.map(verifierUnstableLine)) if (line) out.push(markdownText(sentence(line)), '')

    // One paragraph each: two ranking lines must not render as one.
    for (const r of rankingChanges(b.cells)) out.push(`> ${markdownText(sentence(r))}`, '')

    // Money, where there is something to say (the batch APIs' saving against list price among it).
    const spending = spendingLine(b.cells)
    if (spending) out.push(markdownText(sentence(spending)), '')
    const unknownUsage = unknownUsageLine(b.cells)
    if (unknownUsage) out.push(`⚠️ ${markdownText(sentence(unknownUsage))}`, '')

    const chart = seqCurvesMermaid(b.cells, `${b.name}: Seq@k (%)`)
    if (chart) out.push(chart, '')
  }

  if (summary.notRun && summary.notRun.length > 0) {
    out.push(
      `${h(1)} Not run`,
      '',
      ...summary.notRun.map(
        (n) => `- ⏭️ ${markdownText(`${n.benchmark} › ${n.cellId}`)}: ${markdownText(sentence(n.reason))}`,
      ),
      '',
    )
  }
  if (options.changes && options.changes.length > 0) {
    out.push(`${h(1)} Since the last run`, '', ...options.changes.map((c) => `- ${markdownText(c)}`), '')
  }
  return `${out.join('\n').trimEnd()}\n`
}

/**
 * The score curve in Markdown: a table of Score@k for the cells with soft scores (rubrics), with
 * the solved rate at K beside it, or one line saying it is the solved rate when every verdict
 * scored 1 or 0. Empty for cells without a score curve (older summaries).
 *
 * @example
 * scoreCurveMarkdown(cells).join('\n') // => '**Score curve** (Score@k: …), in %\n\n| cell | Score@1 | …'
 */
export function scoreCurveMarkdown(cells: readonly CellSummary[]): string[] {
  const rows = scoreRows(cells)
  if (rows.length === 0) {
    const line = binaryScoreLine(cells)
    return line ? [`_${markdownText(sentence(line))}_`, ''] : []
  }
  const K = Math.max(...cells.map((c) => c.budget))
  const ks = Array.from({ length: K }, (_, i) => i + 1)
  const disclosed = disclosedScoreLine(rows)
  return [
    `**Score curve** (${markdownText(SCORE_CURVE_MEANING)}), in %`,
    '',
    `| cell | ${ks.map((k) => `Score@${k}`).join(' | ')} | 95% CI @${K} | solved @K |`,
    `| --- |${ks.map(() => ' --: ').join('|')}| --: | --: |`,
    ...rows.map((r) => `| ${markdownText(r.cellId)} | ${r.at.join(' | ')} | ${r.ci} | ${r.solved} |`),
    '',
    ...(disclosed ? [markdownText(sentence(disclosed)), ''] : []),
  ]
}

/** Escapes a workflow-command message, as GitHub's toolkit does (`%`, `\r`, `\n`). */
export function escapeAnnotationData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
}

/** Escapes a workflow-command property (`title`, `file`): also `:` and `,`, which end it. */
export function escapeAnnotationProperty(text: string): string {
  return escapeAnnotationData(text).replace(/:/g, '%3A').replace(/,/g, '%2C')
}

/**
 * GitHub workflow commands for the run: `::error` for every failed threshold (and failed gate),
 * `::warning` for thresholds met by the point estimate while the 95% interval reaches below the
 * limit, and for cells with infrastructure errors. Print them to stdout in a GitHub Actions step.
 *
 * @example
 * for (const line of githubAnnotations(summary)) console.log(line)
 * // ::error file=evals/x.eval.ts,title=seqk%3A x › a · binary::Seq@5 = 0.400 < 0.5 …
 */
export function githubAnnotations(summary: RunSummary, options: { gates?: readonly GateResult[] } = {}): string[] {
  const out: string[] = []
  const command = (kind: 'error' | 'warning', file: string, title: string, message: string) =>
    `::${kind} file=${escapeAnnotationProperty(file)},title=${escapeAnnotationProperty(title)}::${escapeAnnotationData(message)}`
  // A file that failed to load is a failed entry here too.
  for (const e of summary.loadErrors ?? [])
    out.push(command('error', e.file, `seqk: ${e.file} failed to load`, e.error))
  for (const b of summary.benchmarks) {
    for (const cell of b.cells) {
      const title = `seqk: ${b.name} › ${cell.cellId}`
      const { label, interval } = curveOf(cell)
      const verdict = cellVerdict(cell)
      // One ::error per failed check, as every output counts them; a gate's findings in its message.
      for (const c of verdict.failed)
        out.push(
          command(
            'error',
            b.file,
            title,
            `${[c.message, ...c.notes, ...c.details].join('\n')} [fingerprint ${cell.fingerprint}]`,
          ),
        )
      for (const t of cell.thresholds) {
        if (
          t.pass &&
          (t.metric === 'seqAt' || t.metric === 'passAt') &&
          t.k === cell.budget &&
          interval &&
          interval.lo !== null &&
          interval.lo < t.limit
        ) {
          out.push(
            command(
              'warning',
              b.file,
              title,
              `${label}@${t.k} meets ${t.limit} on the point estimate (${percentText(t.actual)}), but its 95% interval reaches ${percentText(interval.lo)} [fingerprint ${cell.fingerprint}]`,
            ),
          )
        }
      }
      // A gate that held but could not see the drop that matters is a warning, never silence.
      for (const c of verdict.passed.filter((x) => x.caution))
        out.push(command('warning', b.file, title, [c.message, ...c.notes].join('\n')))
      if (cell.errors.count > 0 && verdict.status !== 'fail') {
        out.push(
          command(
            'warning',
            b.file,
            title,
            `${cell.errors.count} of ${cell.trajectories} trajectories ended in an infrastructure error${cell.errors.examples[0] ? `, e.g. ${cell.errors.examples[0].message}` : ''}`,
          ),
        )
      }
      const unknown = unknownUsageLine([cell])
      if (unknown) out.push(command('warning', b.file, title, unknown))
      for (const g of gatesFor(b.name, [cell], options.gates ?? []))
        if (!g.pass) out.push(command('error', b.file, `${title} (gate)`, g.message))
    }
  }
  return out
}

/**
 * The rows as a Markdown table, what changed in its last column.
 *
 * @example
 * subjectComparisonMarkdown(summary.variantComparisons ?? []).join('\n')
 */
export function subjectComparisonMarkdown(rows: readonly SubjectComparison[]): string[] {
  if (rows.length === 0) return []
  const headers = [...COMPARISON_HEADERS, 'what changed']
  return [
    `| ${headers.join(' | ')} |`,
    `|${headers.map((_, i) => (COMPARISON_NUMERIC.has(i) ? ' --: ' : ' --- ')).join('|')}|`,
    ...rows.map((r) => `| ${[...comparisonValues(r), comparisonDetail(r)].map(markdownText).join(' | ')} |`),
  ]
}
