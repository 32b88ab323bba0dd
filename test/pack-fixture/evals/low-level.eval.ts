// The lower-level API: build cells with planCells + resolveOptions (vitest-seqk/cells), run them
// with runCell, and assert with the matchers that `vitest-seqk/setup` registers.
import { describe, expect, it } from 'vitest'
import { actors, currentRun, feedback, runCell, verifiers } from 'vitest-seqk'
import { planCells, resolveOptions } from 'vitest-seqk/cells'

const doubled = `
def double(x):
    return 2 * x


def double_all(xs):
    return [double(x) for x in xs]
`

const answer = (body: string): string => `\`\`\`python\n${body.trim()}\n\`\`\``

const options = resolveOptions('low-level', {
  tasks: [
    {
      id: 'low/double',
      prompt: 'Write `double(x)`, then `double_all(xs)` which calls it on every element.',
      tests: 'assert double_all([1, 2]) == [2, 4]\nassert double_all([]) == []',
      simulation: {
        difficulty: 0.2,
        correct: [answer(doubled)],
        wrong: [answer(doubled.replace('2 * x', 'x + 1')), answer(doubled.replace('[double(x)', '[x'))],
      },
    },
  ],
  actors: [actors.simulated({ profile: 'reviser', seed: 7 })],
  verifier: verifiers.pythonTests(),
  budget: 3,
  repeats: 2,
  independent: true,
  modes: { verifier: { feedback: feedback.verifier() } },
})

describe('runCell', () => {
  it('runs a planned feedback cell and a planned independent cell', async () => {
    const [sequential, independent] = planCells('low-level', options)
    if (!sequential || !independent) throw new Error('expected two planned cells')
    const { runId } = currentRun()

    const seq = await runCell({ ...sequential, runId })
    expect(seq.trajectories).toHaveLength(2)
    expect(seq.summary.cellId).toBe('simulated:reviser · verifier')
    expect(seq).toReachSeqAt(3, 0)
    expect(seq.summary).toReachSeqAt(1, 0)

    const ind = await runCell({ ...independent, runId })
    expect(ind.summary.mode).toBe('independent')
    expect(ind).toReachPassAt(3, 0)
  })

  it('reports a missed level through the matcher', async () => {
    const [sequential] = planCells('low-level', options)
    if (!sequential) throw new Error('expected a planned cell')
    const result = await runCell({ ...sequential, runId: currentRun().runId })
    expect(() => expect(result).toReachSeqAt(3, 1.01)).toThrow(/to reach Seq@3 ≥ 101\.0%/)
  })
})
