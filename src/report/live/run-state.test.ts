import { describe, expect, it } from 'vitest'
import { liveCell } from '../../../test/live-fixtures.js'
import { RunState, type TrajectoryLine } from './run-state.js'

/** Folds `count` trajectories of one cell declared with `tasks` tasks; returns the state and the CPU time it took. */
function fold(tasks: number, count: number): { state: RunState; ms: number; key: string } {
  const cell = liveCell({ runId: 'r', tasks: Array.from({ length: tasks }, (_, i) => `t${i}`), repeats: 1 })
  const lines = Array.from(
    { length: count },
    (_, i) => cell.trajectory(`t${i % tasks}`, Math.floor(i / tasks), i % 3 === 0 ? 'solved' : 'failed') as never,
  ) as TrajectoryLine[]
  const state = new RunState()
  const key = state.cell(cell.start).key
  const t0 = process.cpuUsage()
  for (const t of lines) state.trajectory(t)
  const { user, system } = process.cpuUsage(t0)
  return { state, ms: (user + system) / 1000, key }
}

describe('RunState at scale', () => {
  it("a trajectory's cost does not grow with its cell's tasks (ratio, not time: 5 000 tasks vs 50)", () => {
    // Before: each trajectory built a set of every task of its cell to say whether its verifier is
    // unstable; catching up with 100 000 trajectories of 5 000-task cells took ~35 s of CPU.
    const best = (tasks: number) => Math.min(...[0, 1, 2].map(() => fold(tasks, 5000).ms))
    fold(50, 2000) // warm up the JIT before either is measured
    const few = best(50)
    const many = best(5000)
    // Before the fix the ratio was ~100 (a set of 5 000 per trajectory against one of 50).
    expect(many / Math.max(few, 1)).toBeLessThan(4)
  })

  it('pages a big cell in order without copying it: the slice asked for, and the total', () => {
    const { state, key } = fold(5000, 10000)
    const page = state.page(key, 4990, 20)
    expect(page.total).toBe(10000)
    expect(page.items.map((t) => `${t.taskId}/${t.repeat}`)).toEqual(
      Array.from({ length: 20 }, (_, i) => `t${(4990 + i) % 5000}/${Math.floor((4990 + i) / 5000)}`),
    )
    expect(state.page(key, 10000, 50)).toEqual({ total: 10000, items: [] })
    expect(state.page('no such cell', 0, 5)).toEqual({ total: 0, items: [] })
  })
})
