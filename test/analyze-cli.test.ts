// `seqk analyze` / `seqk select`: the argv parser and the command in-process (fast, fake IO), then
// end to end through tsx, as a user runs it, on a run of the bundled evals and on synthetic runs.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { writeSummary } from '../src/artifacts/summary-file.js'
import { AnalysisReportSchema, SelectionReportSchema } from '../src/analysis/report-schema.js'
import { simulateRun, type SimulatedRunOptions } from '../src/analysis/simulated-runs.js'
import { parseCommand, UsageError } from '../src/cli/args.js'
import { analyzeSpec, selectSpec } from '../src/cli/run.js'
import { cleanEnv, root, runNode, SEQK, unwrapped } from './fixture-project.js'
import { inProcessCli, type CliResult } from './in-process-cli.js'

const tmp = mkdtempSync(join(tmpdir(), 'seqk-analyze-cli-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const actors: SimulatedRunOptions['actors'] = [
  { id: 'one-shot', firstTry: 0.7, repair: { verifier: 0.05 } },
  { id: 'reviser', firstTry: 0.45, repair: { verifier: 0.7 } },
]
/** Writes a synthetic run directory and returns its path. */
function synthetic(name: string, overrides: Partial<SimulatedRunOptions> = {}): string {
  const dir = join(tmp, name)
  mkdirSync(dir, { recursive: true })
  writeSummary(
    join(dir, 'summary.json'),
    simulateRun({ actors, modes: ['verifier'], tasks: 12, repeats: 2, budget: 5, seed: 4, runId: name, ...overrides }),
  )
  return dir
}

function cli(args: string[]): CliResult {
  const r = inProcessCli(args, tmp)
  // What the output says, its wrapping at 120 columns undone (tested in cli-help.test.ts).
  return { code: r.code, stdout: unwrapped(r.stdout), stderr: unwrapped(r.stderr) }
}

describe('parseCommand', () => {
  it('reads paths, --flag value, --flag=value, booleans, --no-flag and --', () => {
    expect(
      parseCommand(analyzeSpec, ['a', '--k', '3', '--json=out.json', '--no-selection', 'b', '--', '--odd-path']),
    ).toEqual({
      command: 'analyze',
      paths: ['a', 'b', '--odd-path'],
      flags: { k: 3, json: 'out.json', selection: false },
    })
    expect(parseCommand(selectSpec, ['-h']).flags.help).toBe(true)
  })

  it('names the unknown flag (with a suggestion), a missing value and an invalid one', () => {
    const message = (args: string[]) => {
      try {
        parseCommand(selectSpec, args)
      } catch (error) {
        expect(error).toBeInstanceOf(UsageError)
        return (error as Error).message
      }
      return 'no error'
    }
    expect(message(['--draw', '5'])).toBe('seqk select: unknown option --draw (did you mean --draws?)')
    expect(message(['--frobnicate'])).toBe('seqk select: unknown option --frobnicate')
    expect(message(['--k'])).toBe('seqk select: --k needs a value <k>')
    expect(message(['--k', '--draws', '3'])).toBe('seqk select: --k needs a value <k>')
    expect(message(['--k', 'three'])).toBe('seqk select: --k must be an integer >= 1 (got "three")')
    expect(message(['--draws', '0'])).toBe('seqk select: --draws must be an integer >= 1 (got "0")')
    expect(message(['--color=yes'])).toBe('seqk select: --color takes no value (got "yes")')
    expect(message(['-x'])).toMatch(/unknown option -x \(options are spelled --name/)
  })
})

describe('runCli (in-process)', () => {
  it('prints help with exit 0, and usage errors with exit 1', () => {
    expect(cli(['--help'])).toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: seqk <command>') })
    expect(cli(['analyze', '--help'])).toMatchObject({ code: 0, stdout: expect.stringContaining('--k <k>') })
    expect(cli([])).toMatchObject({ code: 1 })
    // The unknown command's error lists the commands --help lists, in its order (not a hand copy that
    // goes stale when a command is added).
    const listed = [...inProcessCli(['--help'], tmp).stdout.matchAll(/^ {2}([a-z-]+) {2,}/gm)].map((m) => m[1])
    expect(listed).toEqual(expect.arrayContaining(['analyze', 'compare', 'merge', 'stability']))
    expect(cli(['frob'])).toMatchObject({
      code: 1,
      stderr: `seqk: unknown command "frob" (commands: ${listed.join(', ')})\nRun \`seqk --help\` for usage.\n`,
    })
    expect(cli(['analyze'])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('seqk analyze: no runs given: pass run directories or summary.json files'),
    })
    expect(cli(['analyze', 'missing-dir'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/seqk analyze: .*missing-dir: no such file or directory/),
    })
    expect(cli(['--version']).stdout).toMatch(/^\d+\.\d+\.\d+\n$/)
  })

  it('analyses synthetic runs, writes JSON that validates, and combines runs of different actors', () => {
    const one = synthetic('syn-one')
    const two = synthetic('syn-two', { actors: [{ id: 'third', firstTry: 0.3, repair: { verifier: 0.3 } }] })
    const result = cli(['analyze', one, two, '--json', 'out/analysis.json', '--resamples', '50', '--draws', '20'])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('seqk analyze — 2 runs (syn-one, syn-two), 1 benchmark')
    const report = AnalysisReportSchema.parse(JSON.parse(readFileSync(join(tmp, 'out/analysis.json'), 'utf8')))
    expect(report.benchmarks[0]?.actors).toEqual(['one-shot', 'reviser', 'third'])
    expect(report.sources.map((s) => s.path)).toEqual([join(one, 'summary.json'), join(two, 'summary.json')])
  })

  it('prints only JSON with --json -', () => {
    const result = cli([
      'select',
      synthetic('syn-json'),
      '--json',
      '-',
      '--draws',
      '5',
      '--resamples',
      '0',
      '--max-n',
      '2',
    ])
    expect(result.code).toBe(0)
    expect(SelectionReportSchema.parse(JSON.parse(result.stdout)).selections[0]?.sizes).toHaveLength(2)
  })

  it('refuses (exit 1) runs whose protocols differ beyond the actor, naming the fields', () => {
    const other = synthetic('syn-other-verifier', {
      actors: [{ id: 'third', firstTry: 0.3, repair: { verifier: 0.3 } }],
      verifierSettings: { timeoutMs: 5 },
    })
    const result = cli(['analyze', synthetic('syn-base'), other])
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(
      /refused: these numbers are not comparable[\s\S]*differ in verifier\.settings\.timeoutMs/,
    )
  })

  it('refuses (exit 1) a Seq@k calibration by truncation when the budget was disclosed', () => {
    const result = cli(['select', synthetic('syn-disclosed', { budgetDisclosed: true }), '--k', '3'])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/told the actor its budget \(K=5\), so Seq@3 cannot be read from it by truncation/)
  })
})

describe('seqk from source (tsx) on a run of the bundled evals', () => {
  const runDir = join(tmp, 'evals-run')
  const env = cleanEnv({ CI: 'true' })
  const seqk = async (args: string[]) => {
    const r = await runNode([...SEQK, ...args], { cwd: root, env, timeoutMs: 60_000 })
    return { status: r.status, stdout: unwrapped(r.stdout), stderr: unwrapped(r.stderr) }
  }

  beforeAll(() => {
    // The e2e project's one run of the offline fixtures eval (test/setup/fixtures-run.ts), copied:
    // other files read it too.
    const run = inject('fixturesRun')
    if (run.status !== 0) throw new Error(`bundled evals failed:\n${run.out}`)
    cpSync(run.dir, runDir, { recursive: true })
  })

  it('a reader that stops early (| head) ends the output, not the command: exit 0, no stack trace, the --json file written', async () => {
    const out = join(tmp, 'evals-analysis-head.json')
    const { spawn } = await import('node:child_process')
    const child = spawn(process.execPath, [...SEQK, 'analyze', runDir, '--json', out], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    // Like `head -1`: read the first chunk, then close the pipe.
    child.stdout.once('data', () => child.stdout.destroy())
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
    clearTimeout(timer)
    expect(stderr).toBe('')
    expect(status).toBe(0)
    AnalysisReportSchema.parse(JSON.parse(readFileSync(out, 'utf8')))
  })

  it('analyze prints every table and writes the report', async () => {
    const out = join(tmp, 'evals-analysis.json')
    const result = await seqk(['analyze', runDir, '--json', out])
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
    for (const heading of [
      'Rankings and gaps (paper Table 3)',
      'Revision timing (paper Table 4)',
      'Cost–success (paper Figure 3)',
      'Model selection (paper Figure 2, Table 2)',
      'Correlations over actor × benchmark pairs (paper Figure 4)',
      'Reliability: does it, every time',
    ]) {
      expect(result.stdout).toContain(heading)
    }
    // The bundled simulations plant the paper's headline effect: the reviser is last under Pass@5, first under Seq@5.
    expect(result.stdout).toMatch(/simulated:reviser\s+\d+\.\d\s+3rd\s+100\.0\s+1st\s+up 2/)
    const report = AnalysisReportSchema.parse(JSON.parse(readFileSync(out, 'utf8')))
    const verifier = report.benchmarks[0]?.rankings.find((r) => r.mode === 'verifier')
    expect(verifier?.reversals).toContainEqual({ passAbove: 'simulated:one-shot', seqAbove: 'simulated:reviser' })
    // The capable but inconsistent actor: second by Seq@5 with verifier feedback, last by pass^5.
    const reliability = report.benchmarks[0]?.reliability.find((r) => r.mode === 'verifier')
    const byPassHat = reliability?.rankings.find((r) => r.metric === 'pass^5')
    expect(byPassHat?.differsFromSeq).toBe(true)
    expect(byPassHat?.ranks.find((r) => r.actorId === 'simulated:flaky')).toEqual({
      actorId: 'simulated:flaky',
      rank: 4,
      seqRank: 2,
    })
    expect(reliability?.notes).toContainEqual(
      expect.stringMatching(/^verifier: the ranking changes from pass\^5 to Seq@5: .*simulated:flaky 4th → 2nd/),
    )
  })

  it('select prints the selection table and exits 0; a refusal exits 1', async () => {
    const result = await seqk(['select', runDir, '--mode', 'verifier', '--draws', '50', '--resamples', '50'])
    expect(result.status).toBe(0)
    expect(result.stdout).toMatch(
      /deploy with verifier feedback, scored by held-out Seq@5; calibrate with Pass@5 or Seq@3/,
    )
    expect(result.stdout).toMatch(/random choice: loss/)
    const refused = await seqk(['select', runDir, '--k', '9'])
    expect(refused.status).toBe(1)
    expect(refused.stderr).toMatch(/k must be an integer in 1\.\.5/)
  })
})
