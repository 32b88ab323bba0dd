import { describe, expect, it } from 'vitest'
import { parseStat, treeCpuMs, treeTicks } from './process-cpu.js'

describe('parseStat', () => {
  it('reads the parent and the CPU ticks past a command name holding spaces and parentheses', () => {
    const line = '4242 (py (evil) x) R 17 4242 4242 0 -1 4194304 100 0 0 0 250 30 0 0 20 0 1 0 1 2 3'
    expect(parseStat(line)).toEqual({ ppid: 17, ticks: 280 })
    expect(parseStat('garbage')).toBeUndefined()
  })
})

describe('treeTicks', () => {
  it("sums the root and every descendant, not its parent's or a sibling's", () => {
    const processes = new Map([
      [1, { ppid: 0, ticks: 1000 }],
      [10, { ppid: 1, ticks: 5 }], // the root
      [11, { ppid: 10, ticks: 7 }],
      [12, { ppid: 11, ticks: 30 }], // a grandchild: the judge inside bwrap
      [20, { ppid: 1, ticks: 400 }], // a sibling
    ])
    expect(treeTicks(10, processes)).toBe(42)
    expect(treeTicks(99, processes)).toBeUndefined()
  })
})

describe('treeCpuMs', () => {
  it('reads this process from /proc and sees it spend CPU; nothing for a pid that is not there', () => {
    const before = treeCpuMs(process.pid)
    expect(before).toBeGreaterThanOrEqual(0)
    // Busy until /proc shows 30 ms more (ticks are 10 ms; a loaded machine only slows this down).
    let after = before!
    const end = Date.now() + 20_000
    while (after - before! < 30 && Date.now() < end) {
      for (let i = 0; i < 1e6; i++) Math.sqrt(i)
      after = treeCpuMs(process.pid)!
    }
    expect(after - before!).toBeGreaterThanOrEqual(30)
    expect(treeCpuMs(2 ** 22 + 12345)).toBeUndefined()
  })
})
