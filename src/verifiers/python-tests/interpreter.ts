/**
 * Finding the Python interpreter once per process.
 *
 * `python3` is often a launcher (a pyenv shim costs ~280 ms per start here, the interpreter it
 * starts ~45 ms), and a verifier starts Python once per worker. So the command is run once to ask
 * for `sys.executable`, and every worker spawns that path directly.
 *
 * Sandboxed runs (bubblewrap, or any run as root, which drops to an unprivileged uid) prefer the system
 * interpreter `/usr/bin/python3`: a per-user install such as pyenv under `/root` (mode 0700) cannot
 * be read by the unprivileged sandbox user, and `/usr` is bound into the sandbox anyway.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'

/** The oldest Python the harness supports (it uses `ast.get_source_segment`). */
const MIN_VERSION: readonly [number, number] = [3, 8]

/** Commands tried, in order, when neither an explicit path nor `SEQK_PYTHON` is given. */
const DEFAULT_COMMANDS = ['python3', 'python']

const PROBE_TIMEOUT_MS = 15_000
// Prints the interpreter's own path, its version, the directories it loads the standard library
// from (a sandbox must bind those read-only when they are outside /usr) and its site-packages
// (`python file.py` imports third-party packages from there; the user's own are left out).
const PROBE_SCRIPT = [
  'import os, site, sys',
  'print(sys.executable)',
  'print("%d.%d.%d" % sys.version_info[:3])',
  'print(os.pathsep.join(sorted(set(p for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, os.path.dirname(os.__file__)) if p))))',
  'print(os.pathsep.join(p for p in getattr(site, "getsitepackages", lambda: [])() if os.path.isdir(p)))',
].join('; ')

/** The system interpreter sandboxed runs prefer (see the module comment). */
export const SYSTEM_PYTHON = '/usr/bin/python3'

/** A usable interpreter, as its probe described it. */
export interface Interpreter {
  /** Absolute path of the executable (`sys.executable`). */
  path: string
  /** `major.minor.micro`. */
  version: string
  /** `sys.prefix`, `sys.base_prefix`, the standard library's directory...: what a sandbox must bind. */
  directories: string[]
  /** `site.getsitepackages()` that exist: third-party packages, read-only in the sandbox (their .pth files are not run). */
  sitePackages: string[]
}

/** An infrastructure error: no usable Python interpreter. Not a verdict on any answer. */
export class PythonNotFoundError extends Error {
  constructor(
    message: string,
    /** Each command tried and why it was rejected. */
    readonly attempts: readonly string[],
  ) {
    super(message)
    this.name = 'PythonNotFoundError'
  }
}

// Keyed by the requested command (explicit path, SEQK_PYTHON value, or '' for the default search)
// and whether the system interpreter is preferred.
const resolved = new Map<string, Promise<Interpreter>>()

/**
 * The absolute path of the Python interpreter to run, resolved once per process and memoised.
 *
 * Order: the `python` argument, else the `SEQK_PYTHON` environment variable, else (with
 * `preferSystem`) `/usr/bin/python3` when it exists and is 3.8+, else `python3`, then `python`
 * on PATH. Each candidate is started once with `-c "import sys; print(sys.executable)"`; the
 * printed path is used from then on, which skips launchers such as pyenv shims. Python older than
 * 3.8 is rejected.
 *
 * @throws PythonNotFoundError when no candidate works; the message lists what was tried and how to fix it.
 * @example
 * const python = await resolvePython() // e.g. '/root/.pyenv/versions/3.11.7/bin/python3'
 * const pinned = await resolvePython('/usr/bin/python3')
 */
export function resolvePython(python?: string, options: { preferSystem?: boolean } = {}): Promise<string> {
  const interpreter = resolveInterpreter(python, options)
  let path = paths.get(interpreter)
  if (!path) {
    path = interpreter.then((i) => i.path)
    paths.set(interpreter, path)
  }
  return path
}

// The same promise for the same resolution, so callers can tell a memoised answer.
const paths = new WeakMap<Promise<Interpreter>, Promise<string>>()

/**
 * Like {@link resolvePython}, with the probe's description of the interpreter (version and the
 * directories a sandbox must make visible).
 *
 * @example
 * const { path, version, directories } = await resolveInterpreter(undefined, { preferSystem: true })
 */
export function resolveInterpreter(python?: string, options: { preferSystem?: boolean } = {}): Promise<Interpreter> {
  const requested = python ?? process.env.SEQK_PYTHON ?? ''
  const preferSystem = requested === '' && options.preferSystem === true
  const key = `${preferSystem ? 'system:' : ''}${requested}`
  let promise = resolved.get(key)
  if (!promise) {
    promise = search(requested, python !== undefined ? 'the `python` option' : 'SEQK_PYTHON', preferSystem)
    resolved.set(key, promise)
    // A failure is not memoised: the user may install Python or fix the path and try again.
    promise.then(
      // Asking for the resolved path itself later needs no second probe.
      (interpreter) =>
        void (resolved.has(interpreter.path) || resolved.set(interpreter.path, Promise.resolve(interpreter))),
      () => resolved.delete(key),
    )
  }
  return promise
}

async function search(requested: string, origin: string, preferSystem: boolean): Promise<Interpreter> {
  const commands =
    requested !== ''
      ? [requested]
      : [...(preferSystem && existsSync(SYSTEM_PYTHON) ? [SYSTEM_PYTHON] : []), ...DEFAULT_COMMANDS]
  const attempts: string[] = []
  for (const command of commands) {
    const outcome = await probe(command)
    if (!('problem' in outcome)) return outcome
    attempts.push(`${command}: ${outcome.problem}`)
  }
  const tried = requested !== '' ? `${origin} (${requested})` : `\`${DEFAULT_COMMANDS.join('`, `')}\` on PATH`
  throw new PythonNotFoundError(
    `vitest-seqk python-tests: no usable Python ${MIN_VERSION.join('.')}+ interpreter found (tried ${tried}).\n` +
      attempts.map((a) => `  - ${a}`).join('\n') +
      '\nInstall python3, or point SEQK_PYTHON (or the `python` option of pythonTests()) at a Python 3.8+ executable.',
    attempts,
  )
}

/** Runs the probe script with `command`: the interpreter's description, or why it is unusable. */
function probe(command: string): Promise<Interpreter | { problem: string }> {
  return new Promise((resolve) => {
    let stdout = ''
    let stderr = ''
    let settled = false
    const done = (value: Interpreter | { problem: string }): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(value)
    }
    // The probe inherits the environment: launchers such as pyenv pick the version from it.
    const child = spawn(command, ['-c', PROBE_SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] })
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      done({ problem: `did not answer within ${PROBE_TIMEOUT_MS} ms` })
    }, PROBE_TIMEOUT_MS)
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', (error: NodeJS.ErrnoException) =>
      done({ problem: error.code === 'ENOENT' ? 'not found' : `could not be started (${error.message})` }),
    )
    child.on('close', (code) => {
      if (code !== 0) {
        const reason = stderr.trim().split('\n').at(-1) ?? ''
        done({ problem: `exited with code ${String(code)}${reason ? `: ${reason}` : ''}` })
        return
      }
      const [executable = '', version = '', directories = '', sites = ''] = stdout
        .replace(/\n$/, '')
        .split('\n')
        .map((line) => line.trim())
      const [major = 0, minor = 0] = version.split('.').map(Number)
      if (major < MIN_VERSION[0] || (major === MIN_VERSION[0] && minor < MIN_VERSION[1])) {
        done({ problem: `is Python ${version || 'of unknown version'}, need ${MIN_VERSION.join('.')}+` })
        return
      }
      // sys.executable can be empty for embedded interpreters: then the command itself is used.
      const list = (text: string): string[] => text.split(':').filter((d) => d !== '')
      done({
        path: executable !== '' ? executable : command,
        version,
        directories: list(directories),
        sitePackages: list(sites),
      })
    })
  })
}

/** Forgets memoised interpreter paths (for tests that change SEQK_PYTHON). */
export function resetPythonResolution(): void {
  resolved.clear()
}
