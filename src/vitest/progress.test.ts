import { describe, expect, it } from 'vitest'
import { Progress } from './progress.js'

function harness(mode: 'line' | 'lines' | 'off') {
  let t = 0
  const out: string[] = []
  // A manual clock: scheduled callbacks run when time passes them.
  const timers: { at: number; fn: () => void; cancelled: boolean }[] = []
  const schedule = (fn: () => void, ms: number) => {
    const timer = { at: t + ms, fn, cancelled: false }
    timers.push(timer)
    return () => (timer.cancelled = true)
  }
  const progress = new Progress(mode, (text) => out.push(text), 5000, () => t, schedule)
  const advance = (ms: number) => {
    t += ms
    for (const timer of timers.splice(0)) {
      if (timer.cancelled) continue
      if (timer.at <= t) timer.fn()
      else timers.push(timer)
    }
  }
  return { progress, out, advance }
}

describe('Progress', () => {
  it('prints plain lines: started once a second has passed, quarter marks only after a quiet second, and the end', () => {
    const { progress, out, advance } = harness('lines')
    progress.start('c', 'bench › a · verifier', 8)
    advance(1200) // still nothing done after a second: it says it started
    progress.tick('c', 'solved')
    progress.tick('c', 'failed') // a quarter, but just printed: no line
    advance(1500)
    progress.tick('c', 'solved') // a second and a half later: a line
    progress.tick('c', 'error') // half, but just printed: no line
    progress.finish('c')
    expect(out).toEqual([
      'seqk ▸ bench › a · verifier: started, 8 trajectories\n',
      'seqk ▸ bench › a · verifier: 3/8 trajectories, 67% solved, 2.7 s\n',
      'seqk ▸ bench › a · verifier: 4/8 trajectories, 50% solved, 1 errors, 2.7 s, done\n',
    ])
    expect(out.every((l) => !l.includes('\r'))).toBe(true)
  })

  it('a cell done within a second prints one line; one with progress by then prints that instead of "started"', () => {
    const fast = harness('lines')
    fast.progress.start('c', 'x', 2)
    fast.advance(300)
    fast.progress.tick('c', 'solved')
    fast.progress.tick('c', 'failed')
    fast.progress.finish('c')
    fast.advance(2000)
    expect(fast.out).toEqual(['seqk ▸ x: 2/2 trajectories, 50% solved, 0.3 s, done\n'])

    const busy = harness('lines')
    busy.progress.start('c', 'y', 100)
    busy.progress.tick('c', 'solved')
    busy.advance(1000)
    expect(busy.out).toEqual(['seqk ▸ y: 1/100 trajectories, 100% solved, 1.0 s\n'])
  })

  it('prints every interval on a long cell', () => {
    const { progress, out, advance } = harness('lines')
    progress.start('c', 'x', 1000)
    advance(1000)
    expect(out).toEqual(['seqk ▸ x: started, 1000 trajectories\n'])
    for (let i = 0; i < 3; i++) {
      advance(5000)
      progress.tick('c', 'failed')
    }
    expect(out.filter((l) => l.includes('/1000'))).toHaveLength(3)
  })

  it('rewrites one line in place in line mode and clears it at the end', () => {
    const { progress, out, advance } = harness('line')
    progress.start('c', 'x', 2)
    advance(200)
    progress.tick('c', 'solved')
    progress.finish('c')
    expect(out.at(-2)).toBe('\r\x1b[2Kseqk ▸ x: 1/2 trajectories, 100% solved, 0.2 s')
    expect(out.at(-1)).toBe('\r\x1b[2K')
  })

  it('prints nothing more for a cell that never finished once the run is disposed', () => {
    const { progress, out, advance } = harness('lines')
    progress.start('c', 'x', 10)
    progress.dispose()
    advance(5000)
    progress.tick('c', 'solved')
    expect(out).toEqual([])
  })

  it('is silent when off', () => {
    const { progress, out } = harness('off')
    progress.start('c', 'x', 2)
    progress.tick('c', 'solved')
    progress.finish('c')
    expect(out).toEqual([])
  })
})
