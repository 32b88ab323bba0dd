import { describe, expect, it } from 'vitest'
import { Progress } from './progress.js'

function harness(mode: 'line' | 'lines' | 'off') {
  let t = 0
  const out: string[] = []
  const progress = new Progress(mode, (text) => out.push(text), 5000, () => t)
  return { progress, out, advance: (ms: number) => (t += ms) }
}

describe('Progress', () => {
  it('prints plain lines: start, quarter marks only after a quiet second, and the end', () => {
    const { progress, out, advance } = harness('lines')
    progress.start('c', 'bench › a · verifier', 8)
    progress.tick('c', 'solved')
    progress.tick('c', 'failed') // a quarter, but less than a second in: no line
    advance(1500)
    progress.tick('c', 'solved') // a second and a half later: a line
    progress.tick('c', 'error') // half, but just printed: no line
    progress.finish('c')
    expect(out).toEqual([
      'seqk ▸ bench › a · verifier: started, 8 trajectories\n',
      'seqk ▸ bench › a · verifier: 3/8 trajectories, 67% solved, 1.5 s\n',
      'seqk ▸ bench › a · verifier: 4/8 trajectories, 50% solved, 1 errors, 1.5 s, done\n',
    ])
    expect(out.every((l) => !l.includes('\r'))).toBe(true)
  })

  it('prints every interval on a long cell', () => {
    const { progress, out, advance } = harness('lines')
    progress.start('c', 'x', 1000)
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

  it('is silent when off', () => {
    const { progress, out } = harness('off')
    progress.start('c', 'x', 2)
    progress.tick('c', 'solved')
    progress.finish('c')
    expect(out).toEqual([])
  })
})
