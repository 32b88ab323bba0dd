/**
 * One command in the Python verifier's sandbox, with a host directory bound read-write as its
 * working directory: what an agent's `run_command` and `run_python` tools run. The same sandbox
 * plan, mounts, empty environment, unprivileged uid, resource limits (attemptLimits), seccomp
 * filter and wall-clock kill as a candidate's attempt; the only difference is the one writable
 * directory it shares with the host, which the caller reads with symlinks never followed.
 */
import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { resolveInterpreter } from './interpreter.js'
import { attemptLimits, DEFAULT_MEMORY_MB, HARNESS_LOADER } from './run-harness.js'
import { planSandbox, WORKER_ENV, workerCommand } from './sandbox.js'
import type { SandboxMode, SandboxOption } from './sandbox.js'

/** The options of {@link runSandboxedCommand}. */
export interface SandboxedCommandOptions {
  /** Host directory bound at /workspace (bwrap) or used as the working directory (none). */
  workspace: string
  /** The command and its arguments, looked up on the sandbox's PATH. */
  argv: readonly string[]
  /** Written to the command's stdin (then closed). */
  stdin?: string
  timeoutMs: number
  /** Cap per stream on what is kept of stdout and stderr. */
  maxOutputBytes: number
  memoryMb?: number
  sandbox?: SandboxOption
  python?: string
  signal?: AbortSignal
}

/** How one sandboxed command ended. */
export interface SandboxedCommandResult {
  exitCode: number | null
  exitSignal: NodeJS.Signals | null
  timedOut: boolean
  /** The first `maxOutputBytes` of each stream. */
  stdout: string
  stderr: string
  /** How many bytes each stream wrote in all. */
  stdoutBytes: number
  stderrBytes: number
  /** The command was killed for writing far more than is kept (64x the cap). */
  outputKilled: boolean
  durationMs: number
  sandbox: SandboxMode
}

/**
 * Runs inside the sandbox before the command: the attempt's resource limits and the candidate's
 * seccomp filter, then exec. A limit that cannot be set or a filter that cannot load stops here
 * (exit 71) rather than run the command with less.
 */
const LAUNCH_SOURCE = [
  'import json, os, resource, sys',
  'import seccomp',
  'def main(argv):',
  '    limits = json.loads(argv[1])',
  '    cpu = max(1, int(limits["cpuSeconds"]))',
  '    wanted = [(resource.RLIMIT_CPU, (cpu, cpu + 1)), (resource.RLIMIT_CORE, (0, 0)),',
  '              (resource.RLIMIT_FSIZE, (limits["fileSizeBytes"],) * 2), (resource.RLIMIT_NOFILE, (limits["openFiles"],) * 2),',
  '              (resource.RLIMIT_AS, (limits["memoryBytes"],) * 2)]',
  '    if limits["processes"]:',
  '        wanted.append((resource.RLIMIT_NPROC, (limits["processes"],) * 2))',
  '    try:',
  '        for which, value in wanted:',
  '            resource.setrlimit(which, value)',
  '    except (ValueError, OSError) as error:',
  '        sys.stderr.write("sandbox: a limit could not be set: %s\\n" % error)',
  '        return 71',
  '    seccomp.load_libc()',
  '    if not seccomp.install():',
  '        sys.stderr.write("sandbox: the seccomp filter could not be loaded\\n")',
  '        return 71',
  '    try:',
  '        os.execvp(argv[2], argv[2:])',
  '    except OSError as error:',
  '        sys.stderr.write("%s: %s\\n" % (argv[2], error.strerror))',
  '        return 127',
].join('\n')

let seccompSource: Promise<string> | undefined

/** Output beyond this many times the cap kills the command: it is flooding, not reporting. */
const FLOOD_FACTOR = 64

/**
 * Runs `argv` in the sandbox with `workspace` as its one writable directory besides a private
 * /tmp. Resolves for every ending of the command (a non-zero exit, a signal, the timeout, a
 * flood of output); rejects when the sandbox cannot start, and with the signal's reason when
 * aborted. Where `auto` found no bubblewrap, refuses (the caller decides whether `none` is allowed).
 *
 * @example
 * const run = await runSandboxedCommand({ workspace: dir, argv: ['sh', '-c', 'ls'], timeoutMs: 5000, maxOutputBytes: 65536 })
 * run.exitCode // 0
 */
export async function runSandboxedCommand(options: SandboxedCommandOptions): Promise<SandboxedCommandResult> {
  const { signal } = options
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted')
  const plan = planSandbox(options.sandbox ?? 'auto')
  if (plan.missing !== undefined)
    throw new Error(
      `vitest-seqk workspace: refusing to run a command without a sandbox: ${plan.missing}. Install bubblewrap, or pass sandbox: 'none' to run it unsandboxed`,
    )
  const preferSystem = plan.mode === 'bwrap' || plan.setpriv !== undefined
  seccompSource ??= readFile(fileURLToPath(new URL('./seccomp.py', import.meta.url)), 'utf8')
  const [interpreter, seccomp] = await Promise.all([
    resolveInterpreter(options.python, { preferSystem }),
    seccompSource,
  ])
  const limits = attemptLimits(plan, {
    timeoutMs: options.timeoutMs,
    maxOutputBytes: options.maxOutputBytes,
    memoryMb: options.memoryMb ?? DEFAULT_MEMORY_MB,
  })
  const loaderArgs = ['2', 'seccomp', seccomp, 'launch', LAUNCH_SOURCE, JSON.stringify(limits), ...options.argv]
  const [file, ...args] = workerCommand(plan, interpreter, ['-S', '-B', '-c', HARNESS_LOADER, ...loaderArgs], {
    workspace: options.workspace,
  })
  const started = performance.now()
  const child = spawn(file!, args, {
    env: WORKER_ENV,
    cwd: plan.mode === 'bwrap' ? '/' : options.workspace,
    stdio: ['pipe', 'pipe', 'pipe'],
    // Own process group, killed whole: a kill that lands while bwrap is still setting up (a short
    // limit, or a loaded machine) left its half-made sandbox orphaned, holding the output pipes,
    // so the command never ended (as the pool's workers).
    detached: true,
  })
  const cap = options.maxOutputBytes
  const streams = { stdout: new Capped(cap), stderr: new Capped(cap) }
  let timedOut = false
  let outputKilled = false
  const kill = () => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return
    try {
      process.kill(-child.pid, 'SIGKILL')
    } catch {
      child.kill('SIGKILL')
    }
  }
  const timer = setTimeout(() => {
    timedOut = true
    kill()
  }, options.timeoutMs)
  const onAbort = () => kill()
  signal?.addEventListener('abort', onAbort, { once: true })
  for (const name of ['stdout', 'stderr'] as const) {
    child[name].on('data', (chunk: Buffer) => {
      streams[name].push(chunk)
      if (streams[name].total > cap * FLOOD_FACTOR && !outputKilled) {
        outputKilled = true
        kill()
      }
    })
  }
  child.stdin.on('error', () => {})
  child.stdin.end(options.stdin ?? '')
  try {
    const [exitCode, exitSignal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once('error', reject)
      child.once('close', (code, sig) => resolve([code, sig]))
    })
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted')
    return {
      exitCode,
      exitSignal,
      timedOut,
      outputKilled,
      stdout: streams.stdout.text(),
      stderr: streams.stderr.text(),
      stdoutBytes: streams.stdout.total,
      stderrBytes: streams.stderr.total,
      durationMs: performance.now() - started,
      sandbox: plan.mode,
    }
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener('abort', onAbort)
  }
}

/** The head of a stream, up to a cap, and its total length. */
class Capped {
  readonly #chunks: Buffer[] = []
  #kept = 0
  total = 0
  constructor(private readonly cap: number) {}
  push(chunk: Buffer): void {
    this.total += chunk.length
    if (this.#kept >= this.cap) return
    const part = chunk.subarray(0, this.cap - this.#kept)
    this.#chunks.push(part)
    this.#kept += part.length
  }
  text(): string {
    return Buffer.concat(this.#chunks).toString('utf8')
  }
}
