// `seqk --help` and every command's help are complete: each command has its own usage line, a
// summary, every flag described with its value, details after the flags and an example that runs
// that command; the main help names every command, --help, --version and examples (the README's
// pointer to `--help` relies on it). And every command, help text, notice and error fits 120
// columns, counted in characters with colour codes stripped.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeSummary } from '../src/artifacts/summary-file.js'
import { wrapText } from '../src/core/text-layout.js'
import { SeqkThresholdError } from '../src/vitest/seq-eval.js'
import { fakeRun } from './report-fixtures.js'
import { commandHelp, type CommandSpec } from '../src/cli/args.js'
import { mergeSpec } from '../src/cli/merge.js'
import { powerSpec } from '../src/cli/power.js'
import { resumeSpec } from '../src/cli/resume.js'
import { analyzeSpec, runCli, selectSpec } from '../src/cli/run.js'
import { summarizeSpec } from '../src/cli/summarize.js'
import { suitesSpec } from '../src/cli/suites.js'
import { viewSpec } from '../src/cli/view.js'
import { stabilitySpec } from '../src/cli/stability.js'

const SPECS: CommandSpec[] = [
  analyzeSpec,
  selectSpec,
  powerSpec,
  resumeSpec,
  summarizeSpec,
  mergeSpec,
  viewSpec,
  suitesSpec,
  stabilitySpec,
]

async function help(argv: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = ''
  const code = await runCli(argv, { stdout: (t) => void (stdout += t), stderr: () => undefined, isTTY: false, env: {} })
  return { code, stdout }
}

describe('seqk help', () => {
  it('the main help lists every command with its summary, --help, --version and examples', async () => {
    const { code, stdout } = await help(['--help'])
    expect(code).toBe(0)
    for (const spec of SPECS)
      expect(stdout).toMatch(
        new RegExp(`\\n  ${spec.name}\\s+${spec.summary.split(':')[0]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
      )
    for (const part of ['-h, --help', '-v, --version', 'Examples:', 'npx seqk ']) expect(stdout).toContain(part)
  })

  it.each(SPECS.map((spec) => [spec.name, spec] as const))(
    'seqk %s --help: its usage, summary, every flag, details and an example of it',
    async (name, spec) => {
      const { code, stdout } = await help([name, '--help'])
      expect(code).toBe(0)
      expect(stdout).toBe(`${commandHelp(spec)}\n`)
      expect(stdout.split('\n')[0]).toMatch(new RegExp(`^Usage: seqk ${name} `))
      expect(spec.summary.length).toBeGreaterThan(40)
      for (const flag of spec.flags) {
        expect(flag.description.length, `--${flag.name} of seqk ${name} needs a description`).toBeGreaterThan(15)
        expect(stdout).toContain(`--${flag.name}${flag.value ? ` ${flag.value}` : ''}`)
        if (flag.kind !== 'boolean') expect(flag.value, `--${flag.name} of seqk ${name} names its value`).toBeTruthy()
      }
      expect(spec.details.split('\n').filter((line) => line.trim() !== '').length).toBeGreaterThanOrEqual(3)
      expect(spec.details).toMatch(new RegExp(`Examples?:\\s+npx seqk ${name}\\b`))
    },
  )
})

describe('every command, help text, notice and error fits 120 columns', () => {
  /** Columns a line takes on a terminal: characters, colour codes stripped (mawk's `length` counts bytes). */
  const columns = (line: string) => [...stripVTControlCharacters(line)].length
  // A word longer than a line (a path, a command) keeps a line of its own, whole: it may not be cut.
  const tooLong = (text: string) => text.split('\n').filter((l) => columns(l) > 120 && /\s/.test(l.trim()))
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'seqk-width-'))
    // Two runs of three actors with long names, for the commands that read runs.
    for (const [i, seed] of [1, 2].entries()) {
      const { summary } = fakeRun({
        runId: `run-${i}`,
        seed,
        actors: [
          { id: 'simulated:a-rather-long-actor-name-that-goes-on', skill: 0.3 },
          { id: 'simulated:another-actor-with-a-long-name', skill: 0.6 },
          { id: 'simulated:third', skill: 0.8 },
        ],
      })
      mkdirSync(join(dir, `run-${i}`))
      writeSummary(join(dir, `run-${i}`, 'summary.json'), summary)
    }
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  async function run(argv: string[]): Promise<string> {
    let text = ''
    await runCli(argv, {
      stdout: (t) => void (text += t),
      stderr: (t) => void (text += t),
      isTTY: false,
      env: {},
      cwd: dir,
    })
    return text
  }

  it.each([
    ['--help'],
    ...SPECS.map((s) => [s.name, '--help']),
    ['analyze', 'run-0', 'run-1'],
    ['select', 'run-0', 'run-1', '--draws', '20', '--resamples', '20'],
    ['power', '--tasks', '40', '--repeats', '3', '--rate', '0.75', '--simulations', '40'],
    ['power', 'run-0', '--simulations', '40'],
    ['frobnicate'],
    ['analyze', '--draw', '3'],
    ['analyze', 'no-such-run-directory-with-a-long-name/and/a/longer/path/beneath/it/that/goes/on/and/on/to/the/end'],
    ['merge', 'a'],
    ['summarize', 'run-0'],
    ['resume', 'run-0'],
    ['view', '--port', '99999'],
    ['disclose', 'run-0'],
    ['estimate', 'run-0'],
    ['export', 'run-0', '--format', 'junit'],
    ['export', 'run-0', '--format', 'inspect'],
    ['export', 'run-0'],
  ])('seqk %s', async (...argv) => {
    const text = await run(argv)
    expect(text.trim().length).toBeGreaterThan(0)
    expect(tooLong(text)).toEqual([])
  })

  it('the notices and messages the reporter and the cells print', () => {
    const longPath = '/a/very/long/path/to/a/project/.seqk/runs/20261201-101500-9f2c4a-and-then-some-more-characters'
    const error = new SeqkThresholdError('simulated:a-rather-long-actor-name · verifier', [
      {
        kind: 'threshold',
        pass: false,
        message: `Seq@5 = 40.0%, below the required 50.0% (95% CI 21.1–61.3%): ${'and a very long explanation that goes on '.repeat(4)}`,
        details: [],
        notes: [],
      },
      {
        kind: 'gate',
        pass: false,
        message: `baseline: Seq@5 100.0% → 66.7% on 20 common tasks (difference −33.3 points, 95% CI −46.5–−14.1): a real drop beyond zero (one-sided p < 0.001, below 0.025).`,
        details: [`tasks that got worse: ${Array.from({ length: 30 }, (_, i) => `t${i} 3/3 → 0/3`).join(', ')}`],
        notes: [
          `compared across a change of subject: instructions: ${JSON.stringify('x'.repeat(60))} → ${JSON.stringify('y'.repeat(60))}`,
        ],
      },
    ])
    const texts = [
      error.message,
      wrapText(
        `seqk: ${longPath} already holds a run (trajectories.jsonl); running into it again would mix two runs. To run only what it lacks, resume it: SEQK_RESUME=${longPath}`,
      ),
    ]
    for (const text of texts) expect(tooLong(text)).toEqual([])
    // A path or command longer than a line keeps a line of its own, whole.
    expect(texts[1]!.split('\n').some((l) => l.trim() === `SEQK_RESUME=${longPath}`)).toBe(true)
  })
})
