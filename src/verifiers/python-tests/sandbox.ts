/**
 * How candidate code is isolated: which sandbox is available on this machine and the command line
 * that starts a Python worker inside it.
 *
 * - `bwrap` (bubblewrap): new user, pid, network, IPC, UTS and cgroup namespaces (no network at
 *   all, only loopback), a read-only view of the system directories (`/usr` and its symlinks, plus
 *   the interpreter's own directories and site-packages, and `/etc/alternatives`), nothing else
 *   of `/etc`, no home or project directories, a private size-limited `/tmp` as the only writable
 *   place, an empty environment, `--die-with-parent`, `--new-session` and no further user
 *   namespaces. As root the worker first drops to a uid of its own with `setpriv` (the judge's:
 *   0x3F000000 + its pid, see judge.py), which also makes RLIMIT_NPROC apply (root is exempt).
 * - `none`: no namespaces. As root the worker still drops to a uid of its own (it cannot write the
 *   project, signal Node or exceed its process limit), but it can read world-readable files and
 *   reach the network.
 *
 * Both modes apply the same per-attempt resource limits, wall-clock timeout, empty environment,
 * fresh temporary directory and whole-tree cleanup (see worker.py).
 */
import { spawnSync } from 'node:child_process'
import { accessSync, constants, lstatSync, readFileSync, readlinkSync } from 'node:fs'
import { delimiter, join } from 'node:path'

/**
 * What the user asks for: `auto` uses bubblewrap when it works here; where it does not, only the
 * bundled simulated actors' code runs (unsandboxed, with a warning) and a model's code is refused.
 */
export type SandboxOption = 'auto' | 'bwrap' | 'none'
/** What is actually used. */
export type SandboxMode = 'bwrap' | 'none'

/**
 * The user and group of the sandbox smoke test and of bubblewrap without setpriv ("nobody" on
 * Debian-like systems). Workers themselves run as a uid of their judge's own (judge.py).
 */
export const SANDBOX_UID = 65534
export const SANDBOX_GID = 65534

/** Where an agent's workspace appears inside the sandbox (see `workerCommand`'s `workspace`). */
export const WORKSPACE_MOUNT = '/workspace'

/** Size of the sandbox's private /tmp (tmpfs, held in memory): every file an attempt writes. */
const TMPFS_BYTES = 64 * 1024 * 1024

/**
 * The environment every worker process starts with: nothing of the parent's (no API keys).
 * PYTHONHASHSEED=0 makes str hashing, and so set and dict-of-set iteration order, the same in every
 * run: the same answer gets the same verdict and the same diagnostics (a set's repr in "expected"
 * and "actual") on every machine and in every shard, which caching, baselines, merged reports and
 * the unmodified-revision metric rely on. (The official harness leaves it random per run.)
 */
export const WORKER_ENV: Readonly<Record<string, string>> = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  LANG: 'C.UTF-8',
  PYTHONHASHSEED: '0',
}

/** The decision for this process, with everything needed to build a worker's command line. */
export interface SandboxPlan {
  mode: SandboxMode
  /** `setpriv` path when the worker drops from root to {@link SANDBOX_UID}; undefined when it does not. */
  setpriv?: string
  /** `bwrap` path, in `bwrap` mode. */
  bwrap?: string
  /** bubblewrap supports `--disable-userns` (0.8.0+). */
  disableUserns?: boolean
  /** Why the plan is weaker than asked for, if it is (shown once as a warning). */
  warning?: string
  /**
   * Set when `auto` found no working bubblewrap (why not): then only the bundled simulated actors'
   * code may run, unsandboxed; a model's answer is refused with {@link unsandboxedModelCodeError}.
   */
  missing?: string
}

/**
 * The error for a model's answer that would run without the sandbox `auto` could not set up:
 * model code never runs unsandboxed unless the user asked for `sandbox: 'none'`. Names the fix.
 */
export function unsandboxedModelCodeError(missing: string): SandboxUnavailableError {
  const ci =
    process.env.CI === 'true' || process.env.CI === '1' ? ' (CI=true: install it in the CI job, before the tests)' : ''
  return new SandboxUnavailableError(
    `vitest-seqk python-tests: refusing to run a model's code without a sandbox: ${missing}${ci}. ${INSTALL_HINT}, ` +
      "or pass sandbox: 'none' to pythonTests() to run model code unsandboxed (it can then read what this user can read and reach the network).",
  )
}

/** An infrastructure error: `sandbox: 'bwrap'` was asked for and bubblewrap cannot run here. */
export class SandboxUnavailableError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SandboxUnavailableError'
  }
}

const plans = new Map<SandboxOption, SandboxPlan>()
let warned = false

const INSTALL_HINT = 'Install it with `apt-get install bubblewrap` (Debian/Ubuntu; `dnf install bubblewrap` on Fedora)'

/**
 * Decides, once per process and option, how attempts are isolated. Synchronous because the mode is
 * part of the verifier's settings (and so of the protocol fingerprint), which are read when an eval
 * is declared. For `bwrap` and `auto` it runs bubblewrap once (~10 ms) to check that namespaces can
 * be created here (they cannot in some containers).
 *
 * `auto` falls back to `none` with a one-time `console.warn` saying what is missing and how to
 * install it; `bwrap` throws {@link SandboxUnavailableError} instead.
 *
 * @example
 * planSandbox('auto').mode // 'bwrap' where bubblewrap works, else 'none'
 */
export function planSandbox(option: SandboxOption): SandboxPlan {
  let plan = plans.get(option)
  if (!plan) {
    plan = decide(option)
    plans.set(option, plan)
  }
  if (plan.warning && !warned) {
    warned = true
    console.warn(plan.warning)
  }
  return plan
}

/** Forgets the decisions and the warning (for tests). */
export function resetSandboxPlans(): void {
  plans.clear()
  warned = false
}

function decide(option: SandboxOption): SandboxPlan {
  const root = process.getuid?.() === 0
  const setpriv = root ? findOnPath('setpriv') : undefined
  const dropWarning =
    root && !setpriv ? ' `setpriv` (util-linux) is missing, so attempts run as root: install util-linux.' : ''
  const none: SandboxPlan = { mode: 'none', ...(setpriv ? { setpriv } : {}) }
  if (option === 'none') return dropWarning ? { ...none, warning: `vitest-seqk python-tests:${dropWarning}` } : none

  const bwrap = findOnPath('bwrap')
  const problem = bwrap ? smokeTest(bwrap, setpriv) : { error: 'bubblewrap (`bwrap`) is not on PATH' }
  if ('error' in problem) {
    if (option === 'bwrap') {
      throw new SandboxUnavailableError(
        `vitest-seqk python-tests: sandbox 'bwrap' was requested, but ${problem.error}. ${INSTALL_HINT}, or use sandbox: 'auto' / 'none'.`,
      )
    }
    return {
      ...none,
      missing: problem.error,
      warning:
        `vitest-seqk python-tests: ${problem.error}, so the bundled simulated actors' code runs WITHOUT a sandbox ` +
        `(no network or file-system isolation; ${setpriv ? `it still runs as an unprivileged uid with resource limits and a timeout` : 'only resource limits and a timeout'}), ` +
        `and code from any other actor is refused. ${INSTALL_HINT}, or pass sandbox: 'none' to pythonTests() to run every answer unsandboxed.${dropWarning}`,
    }
  }
  return {
    mode: 'bwrap',
    bwrap,
    disableUserns: problem.disableUserns,
    ...(setpriv ? { setpriv } : {}),
    ...(dropWarning ? { warning: `vitest-seqk python-tests:${dropWarning}` } : {}),
  }
}

/** Runs `true` in the sandbox the workers will use; reports why it failed. */
function smokeTest(bwrap: string, setpriv: string | undefined): { error: string } | { disableUserns: boolean } {
  const help = spawnSync(bwrap, ['--help'], { encoding: 'utf8', timeout: 5000, env: WORKER_ENV })
  const disableUserns = `${help.stdout}${help.stderr}`.includes('--disable-userns')
  const plan: SandboxPlan = { mode: 'bwrap', bwrap, disableUserns, ...(setpriv ? { setpriv } : {}) }
  const [file, ...args] = workerCommand(plan, { path: 'true', directories: [] }, [])
  const run = spawnSync(file ?? bwrap, args, {
    encoding: 'utf8',
    timeout: 10_000,
    env: WORKER_ENV,
    cwd: '/',
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  if (run.status === 0) return { disableUserns }
  const why = (run.stderr || run.error?.message || `exit code ${String(run.status)}`).trim().split('\n')[0] ?? ''
  return {
    error: `bubblewrap is installed but cannot create a sandbox here (${why}; ${bwrapFailureHint(readSetting('/proc/sys/kernel/apparmor_restrict_unprivileged_userns'))})`,
  }
}

function readSetting(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim()
  } catch {
    return undefined
  }
}

/**
 * Why bwrap may fail and what fixes it. Ubuntu 23.10+ (so GitHub's ubuntu-24.04 runners) ships an
 * AppArmor policy that stops unprivileged processes from creating user namespaces.
 */
export function bwrapFailureHint(apparmorRestrictsUserns: string | undefined): string {
  if (apparmorRestrictsUserns === '1') {
    return 'AppArmor blocks unprivileged user namespaces here (Ubuntu 23.10+): run `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`, or load the `bwrap-userns-restrict` AppArmor profile'
  }
  return 'e.g. a container without user namespaces'
}

/**
 * The argv (file first) that starts `command` as a worker: `setpriv` (as root), then `bwrap` with
 * the sandbox's mounts (in `bwrap` mode), then the command. `interpreter.directories` and its
 * `sitePackages` are bound read-only when they are outside the system directories.
 */
export function workerCommand(
  plan: SandboxPlan,
  interpreter: { path: string; directories: readonly string[]; sitePackages?: readonly string[] },
  commandArgs: readonly string[],
  options: { drop?: boolean; workspace?: string } = {},
): string[] {
  const argv: string[] = []
  // `drop: false`: the caller (the judge) drops privileges itself, to a uid of its own.
  if (plan.setpriv && options.drop !== false) {
    // --no-new-privs: a setuid binary cannot give an attempt back what was dropped.
    argv.push(plan.setpriv, `--reuid=${SANDBOX_UID}`, `--regid=${SANDBOX_GID}`, '--clear-groups', '--no-new-privs')
  }
  if (plan.mode === 'bwrap' && plan.bwrap) {
    argv.push(plan.bwrap, '--unshare-all', '--unshare-user')
    if (plan.disableUserns) argv.push('--disable-userns')
    // Root without setpriv: at least be uid 65534 inside the namespace (still root outside it).
    if (!plan.setpriv && process.getuid?.() === 0) argv.push('--uid', String(SANDBOX_UID), '--gid', String(SANDBOX_GID))
    // --as-pid-1: the worker itself is the namespace's init. bubblewrap's own init would hold the
    // worker's stdio in a process the candidate can see (and take descriptors from); the worker is
    // not dumpable, and as init it cannot be killed from inside the namespace.
    argv.push('--die-with-parent', '--new-session', '--as-pid-1', '--clearenv', '--hostname', 'sandbox')
    for (const [name, value] of Object.entries(WORKER_ENV)) argv.push('--setenv', name, value)
    argv.push('--setenv', 'HOME', '/tmp', '--setenv', 'TMPDIR', '/tmp')
    argv.push('--ro-bind', '/usr', '/usr')
    // Merged-/usr systems have /bin -> usr/bin etc.: recreate the symlinks, bind real directories.
    for (const top of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
      const kind = entryKind(top)
      if (kind === 'symlink') argv.push('--symlink', readlinkSync(top), top)
      else if (kind === 'dir') argv.push('--ro-bind', top, top)
    }
    for (const dir of interpreterDirectories(interpreter)) argv.push('--ro-bind', dir, dir)
    // Debian's alternatives (symlinks such as libblas.so.3 -> /etc/alternatives/... -> /usr/...):
    // without them a third-party package's C library (numpy's BLAS) cannot load.
    if (entryKind('/etc/alternatives') === 'dir') argv.push('--ro-bind', '/etc/alternatives', '/etc/alternatives')
    argv.push('--proc', '/proc', '--dev', '/dev', '--size', String(TMPFS_BYTES), '--tmpfs', '/tmp')
    // An agent's workspace (a host directory of its own) is the one other writable place.
    if (options.workspace !== undefined) argv.push('--bind', options.workspace, WORKSPACE_MOUNT)
    // Only /tmp stays writable: the root tmpfs and /dev (with /dev/shm) are made read-only.
    argv.push(
      '--remount-ro',
      '/dev',
      '--remount-ro',
      '/',
      '--chdir',
      options.workspace ? WORKSPACE_MOUNT : '/tmp',
      '--',
    )
  }
  argv.push(interpreter.path, ...commandArgs)
  return argv
}

/** Directories outside the bound system tree that the interpreter needs (e.g. /opt/python3.12). */
function interpreterDirectories(interpreter: {
  path: string
  directories: readonly string[]
  sitePackages?: readonly string[]
}): string[] {
  const inSystem = (dir: string): boolean =>
    ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'].some(
      (top) => dir === top || dir.startsWith(`${top}/`),
    )
  const dirs = new Set<string>()
  const executableDir = interpreter.path.includes('/')
    ? interpreter.path.slice(0, interpreter.path.lastIndexOf('/'))
    : ''
  for (const dir of [executableDir, ...interpreter.directories, ...(interpreter.sitePackages ?? [])]) {
    if (dir !== '' && dir !== '/' && !inSystem(dir) && entryKind(dir) === 'dir') dirs.add(dir)
  }
  // Nested directories are covered by their parent's bind.
  return [...dirs].filter((dir) => ![...dirs].some((other) => other !== dir && dir.startsWith(`${other}/`))).sort()
}

function entryKind(path: string): 'symlink' | 'dir' | 'other' | 'missing' {
  try {
    const stat = lstatSync(path)
    return stat.isSymbolicLink() ? 'symlink' : stat.isDirectory() ? 'dir' : 'other'
  } catch {
    return 'missing'
  }
}

/** The first executable `name` on PATH (the usual system directories when PATH is unset). */
export function findOnPath(name: string): string | undefined {
  const dirs = process.env.PATH
    ? process.env.PATH.split(delimiter)
    : ['/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin']
  for (const dir of dirs) {
    if (dir === '') continue
    const candidate = join(dir, name)
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // not here
    }
  }
  return undefined
}
