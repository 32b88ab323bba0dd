import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { resumeArgs } from './resume.js'
import { runCli } from './run.js'

const dir = mkdtempSync(join(tmpdir(), 'seqk-resume-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function cli(argv: string[]) {
  let out = ''
  let err = ''
  const code = runCli(argv, {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    isTTY: false,
    env: {},
    cwd: dir,
  })
  // What the output says, its wrapping at 120 columns undone (a message wraps onto lines indented by two spaces).
  const unwrap = (text: string) => text.replace(/\n {2}(?=\S)/g, ' ')
  return { code, out: unwrap(out), err: unwrap(err) }
}

describe('seqk resume', () => {
  it('starts a single run with the recorded arguments, never watch mode', () => {
    expect(resumeArgs(['run', '--project', 'evals'])).toEqual(['run', '--project', 'evals'])
    expect(resumeArgs(['--project', 'evals'])).toEqual(['run', '--project', 'evals'])
    expect(resumeArgs(['watch', 'evals/a.eval.ts'])).toEqual(['run', 'evals/a.eval.ts'])
    expect(resumeArgs([])).toEqual(['run'])
  })

  it('refuses a directory with nothing to resume, naming it', () => {
    mkdirSync(join(dir, 'empty'))
    const r = cli(['resume', 'empty'])
    expect(r.code).toBe(1)
    expect(r.err).toBe(
      `seqk resume: nothing to resume in ${join(dir, 'empty')}: it has no trajectories.jsonl (a run directory looks like .seqk/runs/<run id>)\n`,
    )
  })

  it('says which field of run.json is wrong', () => {
    mkdirSync(join(dir, 'bad'))
    writeFileSync(join(dir, 'bad', 'trajectories.jsonl'), '')
    writeFileSync(
      join(dir, 'bad', 'run.json'),
      JSON.stringify({ schema: 'seqk.run/1', runId: 'bad', argv: 'run', cwd: dir }),
    )
    const r = cli(['resume', 'bad'])
    expect(r.code).toBe(1)
    expect(r.err).toMatch(
      /^seqk resume: .*bad\/run\.json is not a seqk run record: argv: .*; pass Vitest's arguments after -- instead\n$/,
    )
  })

  it('refuses a trajectories file with a malformed line, naming the line', () => {
    mkdirSync(join(dir, 'torn'))
    writeFileSync(join(dir, 'torn', 'trajectories.jsonl'), '{"schema": 1}\n')
    const r = cli(['resume', 'torn', '--', 'run'])
    expect(r.code).toBe(1)
    expect(r.err).toMatch(
      /^seqk resume: cannot resume .*torn: .*trajectories\.jsonl:1: not a seqk trajectory: schema: /,
    )
  })

  it('takes exactly one run directory', () => {
    const r = cli(['resume', 'a', 'b'])
    expect(r.code).toBe(1)
    expect(r.err).toMatch(/^seqk resume: give exactly one run directory \(got 2\)/)
  })
})
