// `seqk --help` and every command's help are complete (issue 18, item 5): each command has its own
// usage line, a summary, every flag described with its value, details after the flags and an
// example that runs that command; the main help names every command, --help, --version and
// examples. The README's pointer to `--help` relies on it.
import { describe, expect, it } from 'vitest'
import { commandHelp, type CommandSpec } from '../src/cli/args.js'
import { mergeSpec } from '../src/cli/merge.js'
import { powerSpec } from '../src/cli/power.js'
import { resumeSpec } from '../src/cli/resume.js'
import { analyzeSpec, runCli, selectSpec } from '../src/cli/run.js'
import { summarizeSpec } from '../src/cli/summarize.js'
import { viewSpec } from '../src/cli/view.js'

const SPECS: CommandSpec[] = [analyzeSpec, selectSpec, powerSpec, resumeSpec, summarizeSpec, mergeSpec, viewSpec]

async function help(argv: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = ''
  const code = await runCli(argv, { stdout: (t) => void (stdout += t), stderr: () => undefined, isTTY: false, env: {} })
  return { code, stdout }
}

describe('seqk help', () => {
  it('the main help lists every command with its summary, --help, --version and examples', async () => {
    const { code, stdout } = await help(['--help'])
    expect(code).toBe(0)
    for (const spec of SPECS) expect(stdout).toMatch(new RegExp(`\\n  ${spec.name}\\s+${spec.summary.split(':')[0]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`))
    for (const part of ['-h, --help', '-v, --version', 'Examples:', 'npx seqk ']) expect(stdout).toContain(part)
  })

  it.each(SPECS.map((spec) => [spec.name, spec] as const))('seqk %s --help: its usage, summary, every flag, details and an example of it', async (name, spec) => {
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
  })
})
