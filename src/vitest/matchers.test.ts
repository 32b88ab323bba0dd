import { describe, expect, it } from 'vitest'
import { fakeRun } from '../../test/report-fixtures.js'
import { seqkMatchers } from './matchers.js'

const cells = fakeRun().summary.benchmarks[0]!.cells
const sequential = cells.find((c) => c.protocol.kind === 'sequential')!
const independent = cells.find((c) => c.protocol.kind === 'independent')!
const run = (name: keyof typeof seqkMatchers, subject: unknown, at: number, min: number) =>
  seqkMatchers[name].call({ isNot: false }, subject, at, min)

describe('seqk matchers read every metric through the registry', () => {
  it('Seq^k, pass^k and Cover@τ pass and fail on the summary values', () => {
    const seqHat = sequential.reliability!.seqHat![3]!
    expect(run('toReachSeqHat', sequential, 4, seqHat).pass).toBe(true)
    expect(run('toReachSeqHat', sequential, 4, seqHat + 0.01).message()).toMatch(/to reach Seq\^4 ≥ .*, but it is/)
    const passHat = independent.passHat![1]!
    expect(run('toReachPassHat', independent, 2, passHat).pass).toBe(true)
    const cover = independent.reliability!.coverAt.find((c) => c.tau === 1)!.interval.point!
    expect(run('toReachCoverAt', independent, 1, cover).pass).toBe(true)
    expect(run('toReachCoverAt', independent, 1, cover + 0.01).pass).toBe(false)
    const score = sequential.score!.at[3]!
    expect(run('toReachScoreAt', sequential, 4, score).pass).toBe(true)
    expect(run('toReachScoreAt', independent, 4, independent.score!.at[3]! + 0.01).message()).toMatch(
      /to reach Score@4 ≥ .*, but it is/,
    )
    // An older summary, written before the score curve: not measured, never a pass.
    const { score: _score, ...older } = sequential
    expect(run('toReachScoreAt', older, 4, 0).message()).toContain('did not measure Score@k')
  })

  it('fail closed: a metric the cell does not measure, an unreported τ, a k outside the budget', () => {
    expect(run('toReachPassHat', sequential, 2, 0).message()).toContain(
      'did not measure pass^k (run it with independent sampling)',
    )
    expect(run('toReachSeqHat', independent, 2, 0).message()).toContain(
      'did not measure Seq^k (run it with a feedback mode)',
    )
    expect(run('toReachCoverAt', sequential, 0.3, 0).message()).toContain('name τ in expect.coverAt')
    expect(run('toReachCoverAt', sequential, 1.5, 0).message()).toContain('τ must be a share in (0, 1]')
    expect(run('toReachSeqAt', sequential, 9, 0).message()).toContain('k must be an integer in 1..4')
    expect(run('toReachSeqAt', { nope: 1 }, 1, 0).message()).toContain('expected a seqk cell result')
  })
})
