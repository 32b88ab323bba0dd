/**
 * Warm judges: each is a long-lived `judge.py` process (trusted, as this process's user) that
 * keeps one candidate worker (`worker.py`, inside bubblewrap when sandboxed, dropped to an unprivileged uid of its own)
 * and forks a fresh child of it for every attempt.
 *
 * Why warm: starting a sandboxed interpreter (setpriv + bwrap + python + imports) costs ~45 ms
 * while a fork of a warm worker costs ~1 ms. Each attempt still gets its own process, session,
 * temporary directory, limits, seccomp filter and call socket; the worker kills everything the
 * attempt started before the judge answers.
 *
 * A judge that dies, hangs, or reports that it could not clean up is replaced. Judges are started
 * lazily, shared by every verifier of the process with the same interpreter and sandbox, capped at
 * one per CPU, stopped after a minute idle, and never keep the process alive: their handles are
 * unref'd, except a timer that is armed only while an attempt is in flight.
 */
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import type { Socket } from 'node:net'
import { constants as osConstants } from 'node:os'
import type { SandboxMode } from './sandbox.js'
import { encodeFrame, FrameReader } from './frames.js'
import { WORKER_ENV } from './sandbox.js'
import { treeCpuMs } from './process-cpu.js'

/** What one attempt runs: the prompt's imports, the candidate, the hidden tests. */
export interface AttemptRequest {
  setup: string
  code: string
  tests: string
  /** Run only these statements (0-based, of `tests`): the visible ones of a held-out split. */
  only?: readonly number[]
}

/** Per-attempt limits, applied in the forked child before the candidate runs. */
export interface AttemptLimits {
  /** Wall-clock limit from fork to exit; the whole process tree is killed when it passes. */
  timeoutMs: number
  /** Cap per stream on stdout/stderr (head and tail kept). */
  maxOutputBytes: number
  /** RLIMIT_AS in bytes. */
  memoryBytes: number
  /** RLIMIT_CPU in seconds (SIGXCPU; SIGKILL one second later). */
  cpuSeconds: number
  /** RLIMIT_FSIZE in bytes. */
  fileSizeBytes: number
  /** RLIMIT_NOFILE. */
  openFiles: number
  /** RLIMIT_NPROC, or 0 to leave it alone (it would count every process of a non-dropped user). */
  processes: number
}

/** The judge's answer for one attempt (judge.py `_Judge.attempt`); `result` is checked by run-harness.ts. */
export interface ResultFrame {
  type: 'result'
  /** The judge's verdict on every test statement (validated with zod by the caller). */
  result: unknown
  /** How the candidate's process ended, as its worker saw it. */
  timedOut?: boolean
  exitCode?: number | null
  /** Signal number that ended the attempt. */
  exitSignal?: number | null
  /** The raw UTF-8 of stdout and stderr that followed the frame (frames.ts), as read. */
  outputParts?: Buffer[][]
  durationMs?: number
  /** False when the judge could not clean up (it is replaced). */
  healthy?: boolean
  /**
   * When each step of the attempt ended, in seconds of CLOCK_MONOTONIC (the judge's and the
   * zygote's steps, and Node's `node_sent` / `node_received`): the attempt's time breakdown.
   */
  marks?: Record<string, number>
}

/** How one attempt ended, seen from Node. */
export type AttemptOutcome =
  | { kind: 'result'; frame: ResultFrame; /** Host pid of the candidate's process (sandbox `none`). */ pid?: number }
  /** The judge died during the attempt. */
  | { kind: 'lost'; reason: string }
  /**
   * The judge ended itself evaluating the tests (its CPU limit for a test's evaluation, SIGPROF:
   * a loop in C code over what the answer returned). Not retried: it would loop again.
   */
  | { kind: 'overran' }
  /** No answer long after the timeout: the worker was killed. */
  | { kind: 'unresponsive' }

/** How to start a worker. Pools are shared per distinct spec. */
export interface WorkerSpec {
  /** The full command line, file first (setpriv / bwrap / python ...). */
  argv: readonly string[]
  mode: SandboxMode
  /** Pids reported by the worker are host pids (no pid namespace): Node may signal them. */
  hostPids: boolean
  /**
   * Outside bubblewrap: the `setpriv` that removes, as the judge's sandbox uid (its `ready` frame
   * says which), the temporary directory of an attempt whose judge died. Never removed as root:
   * the directory belonged to the candidate, and its symlinks could steer a recursive delete.
   */
  dropWith?: string
}

/** Startup of a worker (bwrap + interpreter + imports; ~40-80 ms normally) may take this long under load. */
const STARTUP_TIMEOUT_MS = 30_000
/**
 * The judge enforces the timeout itself; Node steps in only this long after twice the timeout (a
 * zygote that dies under an attempt is replaced and the attempt run once more). After a timeout
 * the judge asks the worker to kill the attempt, whose cleanup is bounded by 2 s (worker.py
 * `_reap_orphans`), and waits at most 3 s for its report; with a restart and a self-check in
 * between, 10 s past both runs means the judge is stuck.
 */
const BACKSTOP_MS = 10_000
/**
 * Past the backstop, a judge whose processes still spend CPU is slow, not stuck: a loaded machine
 * (load 17 on 2 cores gives it an eighth of a core) stretches the CPU seconds its own limits allow
 * (the tests' evaluation spinning in C is stopped by the judge's CPU timer, at the time left plus
 * 2 s) into tens of seconds of wall time. It is checked every `SLOW_CHECK_MS` and given more time
 * while it spent at least `SLOW_MIN_SHARE` of a core since the last check and no more CPU than
 * `SLOW_CPU_MS` past twice the timeout since the backstop, for at most `SLOW_MAX_CHECKS` checks;
 * one that blocks (a deadlock, a stopped process) spends nothing and is killed at the backstop as
 * before. Killed, it is the infrastructure's error; ended by its own CPU limit, the answer's.
 */
const SLOW_CHECK_MS = 5_000
const SLOW_MIN_SHARE = 0.02
const SLOW_CPU_MS = 10_000
const SLOW_MAX_CHECKS = 36

/** What the backstop knows of a judge it let run on: checks so far, its tree's CPU at the first and the last. */
export interface SlowJudge {
  checks: number
  firstCpuMs: number
  lastCpuMs: number
}

/**
 * At a backstop check: the judge's next state if it is still working (see `SLOW_CHECK_MS`), or
 * undefined to kill it. `cpuMs` is its process tree's CPU so far (undefined: unknown, so wall time
 * alone decides, as before).
 *
 * @example
 * stillWorking(undefined, 1_000, 1_000) // { checks: 1, firstCpuMs: 1000, lastCpuMs: 1000 }: look again
 */
export function stillWorking(
  slow: SlowJudge | undefined,
  cpuMs: number | undefined,
  timeoutMs: number,
): SlowJudge | undefined {
  if (cpuMs === undefined) return undefined
  if (slow === undefined) return { checks: 1, firstCpuMs: cpuMs, lastCpuMs: cpuMs }
  const progressing = cpuMs - slow.lastCpuMs >= SLOW_MIN_SHARE * SLOW_CHECK_MS
  const withinLimits = cpuMs - slow.firstCpuMs <= 2 * timeoutMs + SLOW_CPU_MS
  return progressing && withinLimits && slow.checks < SLOW_MAX_CHECKS
    ? { checks: slow.checks + 1, firstCpuMs: slow.firstCpuMs, lastCpuMs: cpuMs }
    : undefined
}
/**
 * Before an attempt starts, its worker may still be removing what the previous attempt left
 * (thousands of directories on a loaded disk): a judge that says so (`waiting`) waits up to 60 s
 * more for it (judge.py HANDOVER_WAIT), and Node's backstop gives it that long on top.
 */
const HANDOVER_MS = 60_000
/** Idle workers are stopped after this long (restarting one costs ~50 ms). */
const IDLE_MS = 60_000
/** Kept from a worker's own stderr, for startup errors. */
const STDERR_KEEP = 8 * 1024

/** One worker process. */
class Worker {
  readonly child: ChildProcess
  readonly ready: Promise<void>
  alive = true
  /** False once the worker said it could not clean up, or was killed: never reused. */
  reusable = true
  private pending: ((outcome: AttemptOutcome) => void) | undefined
  /** Restarts the backstop from the attempt's start (the judge relays it), set while an attempt is in flight. */
  private onStarted: ((waiting: boolean) => void) | undefined
  /** Host pid of the attempt in flight (only when pids are host pids). */
  private attemptPid: number | undefined
  /** Host path of the attempt's temporary directory (only outside bubblewrap). */
  private attemptWorkdir: string | undefined
  /** Outside bubblewrap: the judge's private temporary directory (removed when the judge dies). */
  private privateTmp: string | undefined
  private stderrTail = ''
  /** The uid the judge runs its candidates as (its `ready` frame). */
  private sandboxUid: number | undefined
  private idleTimer: NodeJS.Timeout | undefined
  private readonly exitListeners: (() => void)[] = []
  /** The largest frame this judge sent, in bytes (what Node parsed at once). */
  largestFrameBytes = 0
  /** When the attempt in flight was written to the judge (monotonicSeconds). */
  private sentAt: number | undefined

  constructor(private readonly spec: WorkerSpec) {
    const [file = '', ...args] = spec.argv
    this.child = spawn(file, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      // Own process group: killing the worker reaches setpriv/bwrap and everything they run.
      detached: true,
      // Nothing of the parent's environment (API keys): bwrap clears it again inside.
      env: { ...WORKER_ENV },
      // The project directory may be unreadable by the sandbox user; '/' never is.
      cwd: '/',
    })
    // Never keep the event loop (a Vitest worker, a script) alive for an idle worker.
    this.child.unref()
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) (stream as Socket | null)?.unref?.()

    let readyResolve: () => void = () => undefined
    let readyReject: (error: Error) => void = () => undefined
    this.ready = new Promise<void>((resolve, reject) => {
      readyResolve = resolve
      readyReject = reject
    })
    // Ref'd on purpose: a script awaiting its first verdict must not exit while the worker starts.
    const startupTimer = setTimeout(() => {
      readyReject(
        new Error(`vitest-seqk python-tests: the Python worker did not start within ${STARTUP_TIMEOUT_MS} ms`),
      )
      this.kill()
    }, STARTUP_TIMEOUT_MS)
    let isReady = false

    const reader = new FrameReader()
    this.child.stdout?.on('data', (chunk: Buffer) => {
      let frames: unknown[]
      try {
        frames = reader.push(chunk)
        this.largestFrameBytes = Math.max(this.largestFrameBytes, reader.largestFrameBytes)
      } catch (error) {
        this.stderrTail += `\nprotocol error: ${(error as Error).message}`
        this.kill()
        return
      }
      for (const frame of frames) {
        const message = frame as { type?: string; pid?: number; healthy?: boolean; workdir?: string }
        if (message.type === 'ready') {
          this.sandboxUid = (message as { uid?: number }).uid
          isReady = true
          clearTimeout(startupTimer)
          readyResolve()
        } else if (message.type === 'waiting') {
          this.onStarted?.(true)
        } else if (message.type === 'started') {
          this.onStarted?.(false)
          this.attemptPid = this.spec.hostPids ? message.pid : undefined
          this.attemptWorkdir = this.spec.hostPids ? message.workdir : undefined
          const parent = this.attemptWorkdir?.slice(0, this.attemptWorkdir.lastIndexOf('/'))
          if (parent !== undefined && /\/seqk-judge-\d+-[A-Za-z0-9_]+$/.test(parent)) this.privateTmp = parent
        } else if (message.type === 'result') {
          const marks = (frame as ResultFrame).marks
          if (marks !== undefined && this.sentAt !== undefined)
            Object.assign(marks, { node_sent: this.sentAt, node_received: monotonicSeconds() })
          const pid = this.attemptPid
          this.attemptPid = undefined
          this.attemptWorkdir = undefined
          if (message.healthy === false) this.reusable = false
          const settle = this.pending
          this.pending = undefined
          settle?.({ kind: 'result', frame: frame as ResultFrame, ...(pid !== undefined ? { pid } : {}) })
        }
      }
    })
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_KEEP)
    })
    // EPIPE when the worker died before reading: reported by 'exit'.
    this.child.stdin?.on('error', () => undefined)
    this.child.on('error', (error) => {
      clearTimeout(startupTimer)
      readyReject(
        new Error(`vitest-seqk python-tests: could not start the Python worker (${file}): ${error.message}`, {
          cause: error,
        }),
      )
      this.onGone(`could not be started: ${error.message}`)
    })
    this.child.on('exit', (code, signal) => {
      clearTimeout(startupTimer)
      // bwrap reports its command's death by signal N as exit code 128 + N.
      const relayed = spec.mode === 'bwrap' && code !== null && code > 128 ? signalName(code - 128) : null
      const how = signal
        ? `was killed by ${signal}`
        : relayed
          ? `was killed by ${relayed}`
          : `exited with code ${String(code)}`
      if (!isReady) {
        const detail = this.stderrTail.trim()
        readyReject(
          new Error(
            `vitest-seqk python-tests: the Python worker ${how} before it was ready${detail ? `:\n${detail}` : ''}\ncommand: ${describeCommand(spec.argv)}`,
          ),
        )
      }
      this.onGone(how, signal === 'SIGPROF')
    })
  }

  get pid(): number | undefined {
    return this.child.pid
  }

  onExit(listener: () => void): void {
    this.exitListeners.push(listener)
  }

  /** Runs one attempt. Resolves for every outcome; rejects only with the abort reason. */
  run(request: AttemptRequest, limits: AttemptLimits, signal?: AbortSignal): Promise<AttemptOutcome> {
    return new Promise<AttemptOutcome>((resolve, reject) => {
      if (!this.alive) return resolve({ kind: 'lost', reason: 'the worker had already exited' })
      if (signal?.aborted) return reject(abortReason(signal))
      const finish = (): void => {
        clearTimeout(backstop)
        this.onStarted = undefined
        signal?.removeEventListener('abort', onAbort)
        this.pending = undefined
      }
      let slow: SlowJudge | undefined
      const stuck = (): void => {
        const next = stillWorking(slow, treeCpuMs(this.child.pid), limits.timeoutMs)
        if (next) {
          slow = next
          backstop = setTimeout(stuck, SLOW_CHECK_MS)
          return
        }
        finish()
        this.kill()
        resolve({ kind: 'unresponsive' })
      }
      // Ref'd: keeps the process alive while an attempt is in flight (everything else is unref'd).
      let backstop = setTimeout(stuck, 2 * limits.timeoutMs + BACKSTOP_MS)
      // Counted again from the attempt's start; and from a judge that says its worker is still
      // cleaning up after the previous attempt, with that wait on top.
      this.onStarted = (waiting) => {
        clearTimeout(backstop)
        backstop = setTimeout(stuck, (waiting ? HANDOVER_MS : 0) + 2 * limits.timeoutMs + BACKSTOP_MS)
      }
      const onAbort = (): void => {
        finish()
        this.kill()
        reject(abortReason(signal as AbortSignal))
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.pending = (outcome) => {
        finish()
        resolve(outcome)
      }
      const frame = encodeFrame({ ...request, ...limits })
      this.sentAt = monotonicSeconds()
      this.child.stdin?.write(frame)
    })
  }

  /** Kills the worker and, outside a pid namespace, the attempt's process group. */
  kill(): void {
    this.reusable = false
    this.killAttempt()
    if (this.child.pid !== undefined && this.child.exitCode === null && this.child.signalCode === null) {
      try {
        process.kill(-this.child.pid, 'SIGKILL')
      } catch {
        this.child.kill('SIGKILL')
      }
    }
  }

  /** Stops an idle worker politely: end of input makes it exit. */
  close(): void {
    this.reusable = false
    this.cancelIdle()
    this.child.stdin?.end()
  }

  startIdle(onIdle: () => void): void {
    this.cancelIdle()
    this.idleTimer = setTimeout(onIdle, IDLE_MS)
    this.idleTimer.unref()
  }

  cancelIdle(): void {
    clearTimeout(this.idleTimer)
    this.idleTimer = undefined
  }

  private killAttempt(): void {
    // The attempt is its own session and group leader; its group id cannot be reused while any
    // member lives. Inside bubblewrap the pid namespace (and its /tmp) dies with the worker instead.
    const pid = this.attemptPid
    this.attemptPid = undefined
    if (pid !== undefined && pid > 1) {
      try {
        process.kill(-pid, 'SIGKILL')
      } catch {
        // ESRCH: gone already
      }
    }
    // Outside bubblewrap the attempt's directory is in its judge's private one (judge.py), which
    // goes whole when the judge is gone: only a path made that way is ever removed.
    const workdir = this.privateTmp ?? this.attemptWorkdir
    this.attemptWorkdir = undefined
    if (
      workdir !== undefined &&
      /^\/(?:[^/\0]+\/)*seqk-(?:py|judge-\d+)-[A-Za-z0-9_]+$/.test(workdir) &&
      !workdir.includes('/../')
    ) {
      const uid = this.sandboxUid
      const drop =
        this.spec.dropWith !== undefined && uid !== undefined
          ? [this.spec.dropWith, `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--no-new-privs']
          : []
      const [file = 'rm', ...args] = [...drop, 'rm', '-rf', '--', workdir]
      // Fire and forget, unref'd; spawning is synchronous, so this works from an 'exit' handler too.
      const rm = spawn(file, args, { stdio: 'ignore', detached: true, env: { ...WORKER_ENV }, cwd: '/' })
      rm.on('error', () => undefined)
      rm.unref()
    }
  }

  private onGone(how: string, overran = false): void {
    if (!this.alive) return
    this.alive = false
    this.reusable = false
    this.cancelIdle()
    // A candidate that killed its worker may leave its own group behind (outside bwrap).
    this.killAttempt()
    const settle = this.pending
    this.pending = undefined
    const detail = this.stderrTail.trim().split('\n').at(-1)?.trim()
    settle?.(
      overran
        ? { kind: 'overran' }
        : { kind: 'lost', reason: `the sandbox worker ${how}${detail ? ` (${detail})` : ''}` },
    )
    for (const listener of this.exitListeners) listener()
  }
}

interface Waiter {
  give(worker: Worker): void
  fail(error: unknown): void
}

/**
 * A set of up to `size` workers for one spec. With `reuse: false` every attempt gets a worker of
 * its own that is stopped afterwards: the spawn-per-verify mode, with the same isolation.
 */
export class WorkerPool {
  private readonly idle: Worker[] = []
  private readonly live = new Set<Worker>()
  private waiters: Waiter[] = []
  private closed = false
  /** Counters for tests and benchmarks; `largestFrameBytes`: the largest frame any judge sent. */
  readonly stats = { started: 0, lost: 0, retried: 0, largestFrameBytes: 0 }

  constructor(
    readonly spec: WorkerSpec,
    readonly size: number,
    readonly reuse: boolean,
  ) {}

  /** Host pids of the live worker processes (setpriv/bwrap/python: the spawned process). */
  pids(): number[] {
    return [...this.live].filter((w) => w.alive && w.pid !== undefined).map((w) => w.pid as number)
  }

  /**
   * Runs one attempt on a free worker, waiting for one when all are busy (the timeout clock starts
   * at the fork, so waiting never counts against an answer). A worker lost mid-attempt is replaced
   * and the attempt retried once, so that an infrastructure hiccup does not fail an honest answer
   * (the candidate cannot reach the judge: a second loss is an infrastructure error upstream).
   *
   * @throws the abort reason when `signal` aborts; an Error when no worker can be started.
   */
  async run(request: AttemptRequest, limits: AttemptLimits, signal?: AbortSignal): Promise<AttemptOutcome> {
    for (let attempt = 0; ; attempt++) {
      const worker = await this.acquire(signal)
      let outcome: AttemptOutcome
      try {
        outcome = await worker.run(request, limits, signal)
      } finally {
        this.stats.largestFrameBytes = Math.max(this.stats.largestFrameBytes, worker.largestFrameBytes)
        this.release(worker)
      }
      if (outcome.kind === 'lost') this.stats.lost++
      if (outcome.kind === 'lost' && attempt === 0) {
        this.stats.retried++
        continue
      }
      return outcome
    }
  }

  /**
   * Starts a fresh judge, whose start-up runs a self-check with a known-good answer, and keeps it
   * warm: resolves when the trusted side is sound, rejects (an infrastructure error) when not.
   */
  async selfCheck(signal?: AbortSignal): Promise<void> {
    const worker = this.live.size < this.size ? await this.startWorker() : await this.acquire(signal)
    this.release(worker)
  }

  /** True once closed (closeAllPools): a new one must be made. */
  get isClosed(): boolean {
    return this.closed
  }

  /** Kills every worker (synchronously: safe in a process 'exit' handler). */
  close(): void {
    this.closed = true
    for (const waiter of this.waiters) waiter.fail(new Error('vitest-seqk python-tests: the worker pool was closed'))
    this.waiters = []
    for (const worker of this.live) worker.kill()
    this.idle.length = 0
  }

  private async acquire(signal?: AbortSignal): Promise<Worker> {
    if (signal?.aborted) throw abortReason(signal)
    for (let worker = this.idle.pop(); worker; worker = this.idle.pop()) {
      worker.cancelIdle()
      if (worker.alive && worker.reusable) return worker
    }
    if (this.live.size < this.size) return this.startWorker()
    return new Promise<Worker>((resolve, reject) => {
      let done = false
      const onAbort = (): void => {
        done = true
        this.waiters = this.waiters.filter((w) => w !== waiter)
        reject(abortReason(signal as AbortSignal))
      }
      const waiter: Waiter = {
        give: (worker) => {
          // Aborted while a worker was being started for it: hand the worker to the next one.
          if (done) return this.release(worker)
          done = true
          signal?.removeEventListener('abort', onAbort)
          resolve(worker)
        },
        fail: (error) => {
          if (done) return
          done = true
          signal?.removeEventListener('abort', onAbort)
          reject(error instanceof Error ? error : new Error(String(error)))
        },
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.waiters.push(waiter)
    })
  }

  private async startWorker(): Promise<Worker> {
    if (this.closed) throw new Error('vitest-seqk python-tests: the worker pool was closed')
    const worker = new Worker(this.spec)
    this.stats.started++
    this.live.add(worker)
    worker.onExit(() => {
      this.live.delete(worker)
      const index = this.idle.indexOf(worker)
      if (index >= 0) this.idle.splice(index, 1)
      this.pump()
    })
    try {
      await worker.ready
    } catch (error) {
      worker.kill()
      this.live.delete(worker)
      throw error
    }
    return worker
  }

  private release(worker: Worker): void {
    if (this.reuse && worker.alive && worker.reusable && !this.closed) {
      const waiter = this.waiters.shift()
      if (waiter) return waiter.give(worker)
      this.idle.push(worker)
      worker.startIdle(() => {
        const index = this.idle.indexOf(worker)
        if (index >= 0) this.idle.splice(index, 1)
        worker.close()
      })
      return
    }
    if (worker.alive) {
      if (worker.reusable) worker.close()
      else worker.kill()
    }
    // Its slot is free now, even if the process takes a moment to exit.
    this.live.delete(worker)
    this.pump()
  }

  /** Starts workers for waiters while there is room. */
  private pump(): void {
    while (this.waiters.length > 0 && this.live.size < this.size && !this.closed) {
      const waiter = this.waiters.shift() as Waiter
      this.startWorker().then(
        (worker) => waiter.give(worker),
        (error: unknown) => waiter.fail(error),
      )
    }
  }
}

const pools = new Map<string, WorkerPool>()
let exitHookInstalled = false

/**
 * The process-wide pool for `spec` (one per distinct command line and reuse mode), created on
 * first use with `size` workers at most.
 */
export function sharedPool(spec: WorkerSpec, size: number, reuse: boolean): WorkerPool {
  const key = JSON.stringify([spec.argv, reuse])
  let pool = pools.get(key)
  if (!pool) {
    pool = new WorkerPool(spec, size, reuse)
    pools.set(key, pool)
    if (!exitHookInstalled) {
      exitHookInstalled = true
      // Workers also die with their parent (bwrap --die-with-parent, PR_SET_PDEATHSIG) and on EOF;
      // this makes it immediate on a normal exit.
      process.once('exit', closeAllPools)
    }
  }
  return pool
}

/** Kills every worker of every pool in this process (tests; also run at process exit). */
export function closeAllPools(): void {
  for (const pool of pools.values()) pool.close()
  pools.clear()
}

/** Every pool of this process (tests look at their workers). */
export function allPools(): WorkerPool[] {
  return [...pools.values()]
}

/** CLOCK_MONOTONIC in seconds, as Python's `time.monotonic()` reads it (libuv's hrtime is that clock on Linux). */
export function monotonicSeconds(): number {
  return Number(process.hrtime.bigint()) / 1e9
}

/** `SIGKILL` for 9, etc. */
export function signalName(signal: number | null | undefined): NodeJS.Signals | null {
  if (signal === null || signal === undefined) return null
  const entry = Object.entries(osConstants.signals).find(([, number]) => number === signal)
  return (entry?.[0] as NodeJS.Signals | undefined) ?? null
}

function describeCommand(argv: readonly string[]): string {
  // The sources passed with -c are long: show its first line only.
  return argv.map((arg) => (arg.length > 80 ? `'${arg.slice(0, 40).split('\n')[0]}...'` : arg)).join(' ')
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason
  return reason instanceof Error ? reason : new Error('aborted', { cause: reason })
}
