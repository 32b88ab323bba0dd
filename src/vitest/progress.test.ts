import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { fit, MIDDLE_LINES, Progress } from './progress.js'

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
  const progress = new Progress(
    mode,
    (text) => out.push(text),
    5000,
    () => t,
    schedule,
  )
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
    progress.tick('c', 'solved') // a second and a half later, past the first quarter: a line
    progress.tick('c', 'error') // half, but just printed: no line
    progress.finish('c')
    expect(out).toEqual([
      'seqk ▸ bench › a · verifier: started, 8 trajectories\n',
      'seqk ▸ bench › a · verifier: 3/8 trajectories, 67% solved, 2.7 s\n',
      'seqk ▸ bench › a · verifier: 4/8 trajectories, 50% solved, 1 error, 2.7 s, done\n',
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

  it('prints no more than the quarter marks on a long cell, however long it runs', () => {
    const { progress, out, advance } = harness('lines')
    progress.start('c', 'x', 1000)
    advance(1000)
    expect(out).toEqual(['seqk ▸ x: started, 1000 trajectories\n'])
    for (let i = 0; i < 1000; i++) {
      advance(5000)
      progress.tick('c', 'failed')
    }
    progress.finish('c')
    expect(out.map((l) => l.replace(/, [\d.]+ s/, ''))).toEqual([
      'seqk ▸ x: started, 1000 trajectories\n',
      'seqk ▸ x: 250/1000 trajectories, 0% solved\n',
      'seqk ▸ x: 500/1000 trajectories, 0% solved\n',
      'seqk ▸ x: 750/1000 trajectories, 0% solved\n',
      'seqk ▸ x: 1000/1000 trajectories, 0% solved, done\n',
    ])
  })

  it('says what a quiet cell waits on (a retry, a rate limit), within its quarter lines', () => {
    const { progress, out, advance } = harness('lines')
    progress.start('c', 'bench › gpt · binary', 40)
    progress.notice('c', 'retrying gpt (retry 1: HTTP 503), next try in 1 s') // before "started": rides on it
    advance(1000)
    expect(out).toEqual([
      'seqk ▸ bench › gpt · binary: started, 40 trajectories; retrying gpt (retry 1: HTTP 503), next try in 1 s\n',
    ])
    advance(2000)
    progress.notice('c', 'waiting on a rate limit gpt (retry 2: HTTP 429), next try in 4 s') // quiet for 2 s only: held
    expect(out).toHaveLength(1)
    advance(4000)
    progress.notice('c', 'waiting on a rate limit gpt (retry 3: HTTP 429), next try in 8 s') // quiet for 6 s: said now
    // Said now; cut to fit 120 columns at the notice's end, never in the cell's name.
    expect(out[1]).toMatch(
      /^seqk ▸ bench › gpt · binary: 0\/40 trajectories, —, 7\.0 s; waiting on a rate limit gpt \(retry 3: HTTP 429\), next try in …\n$/,
    )
    expect(out[1]!.length).toBeLessThanOrEqual(121)
    for (let i = 0; i < 10; i++) {
      advance(6000)
      progress.notice('c', `retry ${i}`)
    }
    progress.finish('c')
    // start + three middle lines, then a line after 12 s quiet (twice 5 s) and one after 24 s (twice that), + end:
    // a cell that keeps waiting keeps saying why, ever more rarely.
    expect(out).toHaveLength(7)
    expect(out[4]).toMatch(/, 31\.0 s; retry 3\n$/)
    expect(out[5]).toMatch(/, 55\.0 s; retry 7\n$/)
    expect(out.at(-1)).toMatch(/0\/40 trajectories, —, [\d.]+ s, done\n$/)
  })

  it('never prints more than a start, three quarter lines, waiting lines at doubling quiet and an end per cell in lines mode (any ticks, notices and timing)', () => {
    const event = fc.oneof(
      fc.record({
        kind: fc.constant('tick' as const),
        cell: fc.nat(2),
        status: fc.constantFrom('solved' as const, 'failed' as const, 'error' as const),
      }),
      fc.record({ kind: fc.constant('notice' as const), cell: fc.nat(2) }),
      fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 20_000 }) }),
    )
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 3, maxLength: 3 }),
        fc.array(event, { maxLength: 300 }),
        (totals, events) => {
          const { progress, out, advance } = harness('lines')
          totals.forEach((total, i) => progress.start(`c${i}`, `b › cell${i}`, total))
          const done = [0, 0, 0]
          let elapsed = 0
          for (const e of events) {
            if (e.kind === 'wait') {
              advance(e.ms)
              elapsed += e.ms
            } else if (e.kind === 'notice') progress.notice(`c${e.cell}`, 'retrying x')
            else if (done[e.cell]! < totals[e.cell]!) {
              done[e.cell]!++
              progress.tick(`c${e.cell}`, e.status)
            }
          }
          totals.forEach((_, i) => progress.finish(`c${i}`))
          advance(5000)
          for (let i = 0; i < 3; i++) {
            const mine = out.filter((l) => l.startsWith(`seqk ▸ b › cell${i}:`))
            // The k-th waiting line needs 5 s × (2 + 4 + … + 2^k) of quiet before it.
            expect(mine.length).toBeLessThanOrEqual(2 + MIDDLE_LINES + Math.floor(Math.log2(elapsed / 5000 + 2)) - 1)
            expect(mine.filter((l) => l.includes('started')).length).toBeLessThanOrEqual(1)
            expect(mine.at(-1)).toMatch(/, done\n$/)
          }
        },
      ),
    )
  })

  it('fits every line in 120 columns, shortening the benchmark name and keeping the cell id whole', () => {
    const head = `seqk ▸ ${'HumanEval Pro (164 tasks, real models through a gateway) '.repeat(2)} › openai:gpt-4.1-mini · critic-aware`
    const line = fit(head, ': 40/40 trajectories, 100% solved, 12.3 s, done', 120)
    expect(line.length).toBeLessThanOrEqual(120)
    expect(line).toContain('… › openai:gpt-4.1-mini · critic-aware: 40/40 trajectories')
    expect(fit('seqk ▸ b › c', ': done', 120)).toBe('seqk ▸ b › c: done')
    const { progress, out } = harness('lines')
    progress.start('c', `${'x'.repeat(200)} › a · b`, 2)
    progress.finish('c')
    expect(out[0]!.trimEnd().length).toBeLessThanOrEqual(120)
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
