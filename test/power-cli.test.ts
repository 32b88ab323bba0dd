// `seqk power`: the gate's power before a run (a planned size) and for finished runs, in-process.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { writeSummary } from '../src/artifacts/summary-file.js'
import { simulateRun } from '../src/analysis/simulated-runs.js'
import { parseCommand, UsageError } from '../src/cli/args.js'
import { powerSpec } from '../src/cli/power.js'
import { inProcessCli } from './in-process-cli.js'

const tmp = mkdtempSync(join(tmpdir(), 'seqk-power-cli-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const cli = (args: string[]) => inProcessCli(args, tmp)

/** The output with its 120-column wrapping undone (every line break and indent read as one space), for sentences. */
const flat = (text: string) => text.replace(/ *\n */g, ' ')

describe('seqk power', () => {
  // 200 simulated pairs (not the default 500) keep these within the suite's time on a loaded machine.
  it('answers a planned size with a table of drop × power, the detectable drop and what a target needs', () => {
    const { code, stdout } = cli(['power', '--tasks', '40', '--repeats', '3', '--rate', '0.75', '--simulations', '200'])
    expect(code).toBe(0)
    expect(stdout).toMatch(/^planned: Seq@5, 40 tasks × 3 repeats, baseline 75\.0%, concentration 1 \(given\)\n/)
    expect(stdout).toMatch(
      /drop \(points\) +2 +5 +10 +15 +20 +30\n {2}caught \(%\), every task worse in proportion( +\d+){6}\n {2}caught \(%\), a few tasks broken outright( +\d+){6}\n/,
    )
    // The smallest drop caught is the weaker alternative's, named, with the other's beside it.
    expect(flat(stdout)).toMatch(
      /smallest drop caught 80% of the time: \d+ points, with the drop on a few tasks broken outright; \d+ with every task worse in proportion/,
    )
    expect(flat(stdout)).toMatch(
      /to catch a 10-point drop 80% of the time either way: \d+ tasks at 3 repeats, or (\d+ repeats|not even 20 repeats) at 40 tasks/,
    )
    // Seeded: the same question, the same answer.
    expect(cli(['power', '--tasks', '40', '--repeats', '3', '--rate', '0.75', '--simulations', '200']).stdout).toBe(
      stdout,
    )
  })

  it('power grows with the drop and with the tasks (the JSON answer)', () => {
    const answer = (tasks: number) =>
      JSON.parse(
        cli([
          'power',
          '--tasks',
          String(tasks),
          '--repeats',
          '2',
          '--rate',
          '0.6',
          '--simulations',
          '200',
          '--json',
          '-',
        ]).stdout,
      ) as { table: { drop: number; power: number }[]; detectableDrop: number | null }[]
    const [small] = answer(20)
    const [large] = answer(160)
    const powers = small!.table.map((x) => x.power)
    expect(powers).toEqual([...powers].sort((a, b) => a - b))
    for (const [i, row] of large!.table.entries()) expect(row.power).toBeGreaterThanOrEqual(small!.table[i]!.power)
    expect(large!.detectableDrop!).toBeLessThan(small!.detectableDrop ?? Infinity)
  })

  it('says when a benchmark is too small to gate on', () => {
    const { stdout } = cli(['power', '--tasks', '3', '--rate', '0.5', '--simulations', '200'])
    expect(flat(stdout)).toContain('too few tasks to gate on')
    expect(flat(stdout)).toMatch(
      /to catch a 10-point drop 80% of the time either way: \d+ tasks at 1 repeats?, or not even 20 repeats at 3 tasks/,
    )
  })

  it('reads finished runs: one answer per cell, with its own size and rate', () => {
    const dir = join(tmp, 'run')
    mkdirSync(dir, { recursive: true })
    writeSummary(
      join(dir, 'summary.json'),
      simulateRun({
        actors: [{ id: 'reviser', firstTry: 0.45, repair: { verifier: 0.7 } }],
        modes: ['verifier'],
        tasks: 12,
        repeats: 2,
        budget: 4,
        seed: 4,
        runId: 'r',
      }),
    )
    // The simulated run has an independent cell too (Pass@4) besides the verifier cell.
    const { code, stdout } = cli(['power', 'run', '--ks', '1'])
    expect(code).toBe(0)
    expect(flat(stdout)).toMatch(
      /simulated · reviser · verifier: Seq@4, 12 tasks × 2 repeats, baseline \d+\.\d%, concentration [\d.]+ \(how much tasks differ read from their repeats\) gate seqk\.gate\/2: margin 0 points, maxDrop 10 points, Holm over Seq@1, Seq@4;/,
    )
    // Every line fits 120 columns (the layout wraps sentences, never the table).
    for (const line of stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(120)
    expect(stdout).toMatch(/^simulated · reviser · independent: Pass@4, 12 tasks × 2 repeats/)
  })

  it('refuses bad input naming the flag and the fix', () => {
    expect(cli(['power', '--tasks', '40'])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('a planned size needs --tasks and --rate'),
    })
    expect(cli(['power'])).toMatchObject({ code: 1, stderr: expect.stringContaining('pass a planned size') })
    expect(() => parseCommand(powerSpec, ['--rate', '1.5'])).toThrow(UsageError)
    expect(() => parseCommand(powerSpec, ['--rate', '1.5'])).toThrow('--rate must be a number from 0 to 1 (got "1.5")')
    expect(cli(['power', '--tasks', '4', '--rate', '0.5', '--ks', 'two'])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--ks must be attempt counts'),
    })
    expect(cli(['power', 'run', '--tasks', '4', '--rate', '0.5'])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('not both'),
    })
  })

  it('gates a reliability metric with --metric: drops of that metric, out of its own baseline, and says which flag is wrong', () => {
    const { code, stdout } = cli([
      'power',
      '--tasks',
      '40',
      '--repeats',
      '3',
      '--rate',
      '0.75',
      '--metric',
      'reliability',
      '--simulations',
      '100',
    ])
    expect(code).toBe(0)
    // Seq^5 of tasks drawn around Seq@5 75%: every one of 3 repeats must succeed, so its baseline is lower.
    const [, rate] = /^planned: Seq\^5, 40 tasks × 3 repeats, baseline (\d+\.\d)% \(Seq@5 75\.0%\)/.exec(stdout) ?? []
    expect(Number(rate)).toBeGreaterThan(40)
    expect(Number(rate)).toBeLessThan(75)
    expect(flat(stdout)).toContain('Seq^5 alone')
    const wrong = cli(['power', '--tasks', '40', '--rate', '0.75', '--metric', 'passHat'])
    expect(wrong.code).not.toBe(0)
    expect(wrong.stderr).toContain('--metric passHat is not measured by sequential cells; add --independent')
    const typo = cli(['power', '--tasks', '40', '--rate', '0.75', '--metric', 'pass^k'])
    expect(flat(typo.stderr)).toContain('seqk power: --metric: "pass^k" is neither a metric nor a role')
  })
})
