// One seqk command run in this process (runCli), for the CLI tests that need no child process.
import { runCli } from '../src/cli/run.js'

/** What a command said and how it ended. */
export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

/**
 * Runs a synchronous seqk command in `cwd` with an empty environment and no terminal.
 *
 * @example
 * const { code, stdout } = inProcessCli(['power', '--tasks', '20'], tmp)
 */
export function inProcessCli(args: readonly string[], cwd: string): CliResult {
  let stdout = ''
  let stderr = ''
  const code = runCli([...args], {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    isTTY: false,
    env: {},
    cwd,
  })
  // Only some commands (merge, resume, ...) answer with a promise; these tests use the others.
  if (typeof code !== 'number') throw new Error(`seqk ${args[0] ?? ''}: expected a synchronous command`)
  return { code, stdout, stderr }
}
