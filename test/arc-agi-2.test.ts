// ARC-AGI-2's public evaluation split (../shared/benchmarks/arc-agi-2/, 120 tasks) through the
// loader, the grid verifier and cell-match feedback, and one sequential cell of simulated actors on
// real tasks. Skipped, with the reason, where the data is absent.
import { describe, expect, it } from 'vitest'
import { loadArcAgi2 } from '../src/benchmarks/arc-agi-2.js'
import { sharedBenchmarks, missingData, sharedFile } from '../src/benchmarks/test-helpers.js'
import { arcGridVerifier, type Grid } from '../src/verifiers/arc-grid.js'
import { checkVerdict } from '../src/verifiers/verifier.js'
import { cellMatch, cellMatchText } from '../src/feedback/cell-match.js'
import { actors } from '../src/models/index.js'
import { runCell } from '../src/protocol/cell.js'
import { cellSpecFixture } from './protocol-fixture.js'
import { TaskSchema } from '../src/protocol/task.js'

const dir = new URL('arc-agi-2/', sharedBenchmarks)
const skipReason = missingData(sharedFile('arc-agi-2/evaluation.txt'))

/** The target with one cell recoloured: the same size, one cell wrong. */
function offByOne(grids: Grid[]): Grid[] {
  return grids.map((g, i) =>
    i === 0 ? g.map((row, r) => row.map((cell, c) => (r === 0 && c === 0 ? (cell + 1) % 10 : cell))) : g,
  )
}

describe.skipIf(skipReason !== undefined)('ARC-AGI-2 evaluation split', () => {
  const tasks = skipReason ? [] : loadArcAgi2(dir)
  const verifier = arcGridVerifier()

  it('loads the 120 tasks in evaluation.txt order, 167 test grids, each a valid task', () => {
    expect(tasks).toHaveLength(120)
    expect(tasks[0]!.id).toBe('arc-agi-2/da515329') // evaluation.txt's first line, not the first id sorted
    expect(tasks.reduce((n, t) => n + t.expectedGrids.length, 0)).toBe(167)
    for (const t of tasks) {
      expect(verifier.checkTask!(TaskSchema.parse(t))).toEqual([])
      expect(t.prompt).toContain('--Training Examples--')
      // The prompt holds the test inputs, never a test output.
      for (const g of t.expectedGrids) expect(t.prompt).not.toContain(`OUTPUT:\n${JSON.stringify(g)}\n--End`)
    }
    expect(loadArcAgi2(dir, { limit: 3 }).map((t) => t.id)).toEqual(tasks.slice(0, 3).map((t) => t.id))
    expect(() => loadArcAgi2(dir, { ids: ['nope'] })).toThrow(/nope/)
    expect(() => loadArcAgi2(new URL('./nowhere/', dir))).toThrow(/no evaluation\/ folder/)
  })

  it('passes every target, fails it one cell off, and the cell-match text never holds a target', () => {
    for (const t of tasks) {
      const ok = checkVerdict(
        verifier,
        verifier.verify(t, `\`\`\`json\n${JSON.stringify({ test: t.expectedGrids })}\n\`\`\``),
      )
      expect(ok).toMatchObject({ pass: true, score: 1 })
      const wrong = checkVerdict(verifier, verifier.verify(t, JSON.stringify({ test: offByOne(t.expectedGrids) })))
      expect(wrong).toMatchObject({ pass: false, score: 0 })
      const first = t.expectedGrids[0]!
      const cells = first.length * first[0]!.length
      const text = cellMatchText(wrong, 8)
      expect(text.split('\n')[1]).toContain(`(${cells - 1} of ${cells} cells match)`)
      expect(text.split('\n').length).toBeLessThanOrEqual(1 + 8 + 1)
      for (const g of t.expectedGrids) expect(text).not.toContain(JSON.stringify(g))
    }
  })

  it('runs a sequential cell with cell-match feedback on real tasks (simulated actor, offline)', async () => {
    const some = tasks.slice(0, 6).map((t) => ({
      ...t,
      simulation: {
        difficulty: 0.5,
        correct: [JSON.stringify({ test: t.expectedGrids })],
        wrong: [JSON.stringify({ test: offByOne(t.expectedGrids) }), 'I cannot tell.'],
      },
    }))
    const { summary, trajectories } = await runCell(
      cellSpecFixture({
        tasks: some.map((t) => TaskSchema.parse(t)),
        actor: actors.simulated({ profile: 'reviser' }),
        verifier,
        mode: { name: 'cell_match', feedback: cellMatch() },
        budget: 4,
        repeats: 2,
      }),
    )
    expect(summary.trajectories).toBe(12)
    expect(summary.score).toMatchObject({ binary: true })
    summary.score!.at.forEach((v, k) => expect(v).toBeCloseTo(summary.seqAt[k]!, 12))
    const feedbackTexts = trajectories.flatMap((t) => t.attempts.flatMap((a) => (a.feedback ? [a.feedback.text] : [])))
    expect(feedbackTexts.length).toBeGreaterThan(0)
    for (const text of feedbackTexts) expect(text).toMatch(/^(incorrect_output|format_error)/)
  })
})

describe.skipIf(skipReason === undefined)('ARC-AGI-2 evaluation split', () => {
  it('needs ../shared/benchmarks/arc-agi-2/', (ctx) => ctx.skip(skipReason!))
})
