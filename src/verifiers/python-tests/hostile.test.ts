// Hostile candidates: code that loops, forks, allocates, floods, phones home, snoops, writes where
// it should not, hides a daemon, ignores signals, crashes or attacks its own worker. Each must end
// as a failed verdict (or a timeout) with a clear reason, leave no process behind, and leave the
// pool able to verify the next, correct answer. Under bubblewrap everything below is asserted;
// without it (sandbox 'none') only what can be contained without namespaces.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import type { Server, Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Task } from '../../protocol/task.js'
import type { Verdict } from '../verifier.js'
import { allPools } from './pool.js'
import { pythonTests } from './python-tests.js'
import type { PythonTestsVerifier } from './python-tests.js'
import { planSandbox } from './sandbox.js'
import type { SandboxMode } from './sandbox.js'
import {
  descendantsOf,
  eventually,
  processesWith,
  sleepMarker,
  wordMarker,
  expectCappedOutput,
} from './test-helpers.js'

const PROJECT = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '')
const ROOT = process.getuid?.() === 0
const BWRAP = planSandbox('auto').mode === 'bwrap'
const TIMEOUT_MS = 1000
/** The limit of a case whose point is not the clock (its finite work may take seconds on a loaded machine). */
const SPARE_TIMEOUT_MS = 20_000

const task: Task = {
  id: 'hostile/add',
  prompt: 'Write add(a, b).',
  tests: 'assert add(1, 2) == 3\nassert add(-1, 1) == 0',
}
const CORRECT = '```python\ndef add(a, b):\n    return a + b\n```'
const py = (code: string): string => `\`\`\`python\n${code}\n\`\`\``

/**
 * Everything the judges of `mode` run besides their baseline: the candidate's zygote and the next
 * attempt's process it forked ahead (bwrap: also the outer bubblewrap process, with the zygote as
 * the namespace's pid 1).
 */
function strayProcesses(mode: SandboxMode): number[] {
  const baseline = mode === 'bwrap' ? 3 : 2
  return allPools()
    .filter((pool) => pool.spec.mode === mode)
    .flatMap((pool) => pool.pids().map((pid) => descendantsOf(pid)))
    .filter((descendants) => descendants.length > baseline)
    .flat()
}

interface Case {
  name: string
  code: () => string
  /** The verdict's outcome(s) allowed. */
  outcome: readonly Verdict['diagnostics']['outcome'][]
  /** What the summary must say. */
  reason: RegExp
  /** Modes where the case is contained (and so asserted). */
  modes: readonly SandboxMode[]
  /** Markers in the command line of processes the candidate starts. */
  markers?: string[]
  /** Extra checks after the verdict. */
  after?: (verdict: Verdict, mode: SandboxMode) => void | Promise<void>
}

const both: readonly SandboxMode[] = ['bwrap', 'none']
const bwrapOnly: readonly SandboxMode[] = ['bwrap']
// As root the worker runs as an unprivileged uid even without bubblewrap: process limits and file permissions apply.
const rootOrBwrap: readonly SandboxMode[] = ROOT ? both : bwrapOnly

const secret = 'sk-test-secret'
const server: { instance?: Server; port: number; connections: number; sockets: Socket[] } = {
  port: 0,
  connections: 0,
  sockets: [],
}
const pwned = wordMarker('pwned')

const cases: Case[] = [
  {
    name: 'an endless loop',
    code: () => 'while True:\n    pass',
    outcome: ['timeout'],
    reason: /^timed out after 1000 ms( while loading the code| in the call .*)?$/,
    modes: both,
  },
  {
    name: 'a fork bomb',
    code: () => 'import os\nwhile True:\n    os.fork()',
    outcome: ['load-error', 'timeout'],
    reason: /Resource temporarily unavailable .*\[sandbox: at most \d+ processes\]|timed out/,
    modes: rootOrBwrap,
  },
  {
    name: 'a memory bomb',
    // bytes(n) is calloc'd (untouched pages): RLIMIT_AS counts address space, so it stops this as
    // surely as touched memory, without spending a second writing 1 GiB on a small CI machine.
    code: () => 'chunks = []\nwhile True:\n    chunks.append(bytes(64 * 1024 * 1024))',
    outcome: ['load-error'],
    reason: /MemoryError .*\[sandbox: memory limit of 1024 MiB\]/,
    modes: both,
  },
  {
    name: 'an output flood on stdout and stderr',
    code: () => 'import sys\nwhile True:\n    sys.stdout.write("o" * 65536)\n    sys.stderr.write("e" * 65536)',
    outcome: ['timeout'],
    reason: /^timed out after 1000 ms( while loading the code| in the call .*)?$/,
    modes: both,
    after: expectCappedOutput,
  },
  {
    name: 'a connection to a server on the host’s loopback',
    code: () => `import socket\nsocket.create_connection(("127.0.0.1", ${server.port}), timeout=1)`,
    outcome: ['load-error'],
    reason: /ConnectionRefusedError: .*\[sandbox: no network\]/,
    modes: bwrapOnly,
    after: () => expect(server.connections).toBe(0),
  },
  {
    // Sends nothing: the sandbox's network namespace has no route. The candidate checks that itself
    // first and refuses to try if any interface besides loopback exists.
    name: 'a connection to a public address and a DNS lookup',
    code: () =>
      [
        'import socket',
        'interfaces = [line.split(":")[0].strip() for line in open("/proc/net/dev").read().splitlines()[2:]]',
        'if interfaces != ["lo"]:',
        '    raise RuntimeError("refusing to test: network interfaces %r" % interfaces)',
        'errors = []',
        'for attempt in (lambda: socket.getaddrinfo("example.com", 80), lambda: socket.create_connection(("1.1.1.1", 80), timeout=1)):',
        '    try:',
        '        attempt()',
        '    except OSError as exc:',
        '        errors.append(exc)',
        'raise errors[-1] if len(errors) == 2 else RuntimeError("network reachable")',
      ].join('\n'),
    outcome: ['load-error'],
    reason: /OSError: \[Errno 101\] Network is unreachable .*\[sandbox: no network\]/,
    modes: bwrapOnly,
  },
  {
    name: 'reading *_API_KEY from the environment (and other processes’ environments)',
    code: () =>
      [
        'import os',
        `leaks = [k for k, v in os.environ.items() if k.endswith("_API_KEY") or "${secret}" in v]`,
        'pids = [1, os.getppid()]',
        'try:',
        '    pids.append(int(open("/proc/%d/stat" % os.getppid()).read().rsplit(")", 1)[1].split()[1]))',
        'except (OSError, ValueError, IndexError):',
        '    pass',
        'for pid in pids:',
        '    try:',
        `        if b"${secret}" in open("/proc/%d/environ" % pid, "rb").read():`,
        '            leaks.append(pid)',
        '    except OSError:',
        '        pass',
        'raise RuntimeError("leaked: %r" % leaks if leaks else "no secrets visible; env=%s" % sorted(os.environ))',
      ].join('\n'),
    outcome: ['load-error'],
    reason:
      /RuntimeError: no secrets visible; env=\['HOME', 'LANG', 'MKL_NUM_THREADS', 'OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'PATH', 'PYTHONHASHSEED', 'TMPDIR'\]/,
    modes: both,
  },
  {
    name: 'writing outside the temporary directory',
    code: () =>
      [
        'import os',
        'results = []',
        `for path in ("${PROJECT}/${pwned}", "/var/tmp/${pwned}", "/usr/${pwned}", "/${pwned}", "/dev/shm/${pwned}"):`,
        '    try:',
        '        with open(path, "w") as handle:',
        '            handle.write("pwned")',
        '        results.append("WROTE " + path)',
        '    except OSError as exc:',
        '        results.append("%s: %s" % (path, exc.strerror))',
        'raise RuntimeError("; ".join(results))',
      ].join('\n'),
    outcome: ['load-error'],
    reason: /^code did not load: RuntimeError: (?!.*WROTE).*(Read-only file system|No such file or directory)/,
    modes: bwrapOnly,
    after: () => {
      for (const path of [
        `${PROJECT}/${pwned}`,
        `/var/tmp/${pwned}`,
        `/usr/${pwned}`,
        `/${pwned}`,
        `/dev/shm/${pwned}`,
      ])
        expect(existsSync(path), path).toBe(false)
    },
  },
  {
    name: 'writing into the project directory (as an unprivileged uid)',
    code: () => `open("${PROJECT}/${pwned}-2", "w").write("pwned")`,
    outcome: ['load-error'],
    reason: /(PermissionError: .*\[sandbox: runs as an unprivileged user\]|FileNotFoundError)/,
    modes: rootOrBwrap,
    after: () => expect(existsSync(`${PROJECT}/${pwned}-2`)).toBe(false),
  },
  {
    name: 'reading the project’s files and /etc',
    code: () => `print(open("${PROJECT}/package.json").read()[:20])\nprint(open("/etc/passwd").read()[:20])`,
    outcome: ['load-error'],
    reason:
      /FileNotFoundError: .*package\.json.*\[sandbox: only the system directories and the working directory exist\]/,
    modes: bwrapOnly,
    after: (verdict) => expect(verdict.diagnostics.stdout ?? '').not.toContain('vitest-seqk'),
  },
  (() => {
    const marker = wordMarker('daemon')
    const escape = `/tmp/${wordMarker('escaped')}`
    return {
      name: 'a double-forked, setsid daemon that tries to outlive the attempt',
      code: () =>
        [
          'import os, sys',
          'if os.fork() == 0:',
          '    os.setsid()',
          '    if os.fork() == 0:',
          `        os.execv(sys.executable, [sys.executable, "-c", "import sys, time; time.sleep(1.0); open(sys.argv[1], 'w').write('escaped'); time.sleep(60)", "${escape}", "${marker}"])`,
          '    os._exit(0)',
          'import time',
          'time.sleep(0.3)',
          'raise RuntimeError("left a daemon behind")',
        ].join('\n'),
      outcome: ['load-error'],
      reason: /RuntimeError: left a daemon behind/,
      modes: both,
      markers: [marker],
      after: async () => {
        // Past the daemon's sleep: had it survived, it would have written the file by now.
        await new Promise((r) => setTimeout(r, 1300))
        expect(existsSync(escape)).toBe(false)
        rmSync(escape, { force: true })
      },
    } satisfies Case
  })(),
  (() => {
    const marker = sleepMarker()
    return {
      name: 'ignoring SIGTERM (itself and in a child)',
      code: () =>
        [
          'import signal, subprocess',
          'signal.signal(signal.SIGTERM, signal.SIG_IGN)',
          `subprocess.Popen(["sh", "-c", "trap '' TERM; sleep ${marker}"])`,
          'while True:',
          '    pass',
        ].join('\n'),
      outcome: ['timeout'],
      reason: /^timed out after 1000 ms( while loading the code| in the call .*)?$/,
      modes: both,
      markers: [marker],
    } satisfies Case
  })(),
  {
    name: 'deep recursion through C code (stack overflow)',
    code: () =>
      'import sys\nsys.setrecursionlimit(10**8)\ndef f(n):\n    return sorted([0], key=lambda _: f(n + 1))\nf(0)',
    outcome: ['load-error'],
    reason: /killed by SIGSEGV \(a crash: e\.g\. recursion too deep for the C stack\)|RecursionError|MemoryError/,
    modes: both,
  },
  {
    name: 'deep Python recursion with the limit lifted',
    code: () => 'import sys\nsys.setrecursionlimit(10**8)\ndef f(n):\n    return f(n + 1) + 1\nf(0)',
    outcome: ['timeout', 'load-error'],
    reason: /^timed out after 1000 ms( while loading the code)?$|MemoryError|RecursionError|SIGSEGV/,
    modes: both,
  },
  (() => {
    // Where the attempts ran: their temporary directories must not outlive the killed workers
    // (outside bubblewrap they are on the host's /tmp; inside, the tmpfs dies with the sandbox).
    // The log sits in a world-writable directory of the test's own: what a sandbox uid leaves at
    // the top of /tmp is swept after its attempt.
    const logDir = mkdtempSync(join(tmpdir(), 'seqk-hostile-'))
    chmodSync(logDir, 0o777)
    const cwdLog = join(logDir, wordMarker('cwd-log'))
    return {
      name: 'killing its parent (the worker)',
      // (Inside bubblewrap the host's directory is not there: nothing is logged.)
      code: () =>
        `import os, signal\nif os.path.isdir("${logDir}"):\n    open("${cwdLog}", "a").write(os.getcwd() + "\\n")\nos.kill(os.getppid(), signal.SIGKILL)\nimport time\ntime.sleep(5)`,
      // Inside bubblewrap the worker is the namespace's init: a signal from inside is ignored and
      // the candidate sleeps into its timeout. Without a pid namespace it dies; its judge replaces
      // it, checks itself with a known-good answer and runs the attempt once more.
      outcome: ['load-error', 'timeout'],
      reason:
        /the sandbox's worker process died twice while running this code|^timed out after 1000 ms while loading the code$/,
      modes: both,
      after: async (verdict, mode) => {
        expect(verdict.diagnostics.outcome).toBe(mode === 'bwrap' ? 'timeout' : 'load-error')
        if (mode !== 'none') return
        const dirs = readFileSync(cwdLog, 'utf8').trim().split('\n')
        rmSync(logDir, { recursive: true, force: true })
        expect(dirs).toHaveLength(2)
        for (const dir of dirs) expect(dir).toMatch(/\/seqk-py-/)
        expect(await eventually(() => dirs.every((dir) => !existsSync(dir)))).toBe(true)
      },
    } satisfies Case
  })(),
  {
    name: 'killing every process it can see (kill -1)',
    code: () => 'import os, signal\nos.kill(-1, signal.SIGKILL)\nimport time\ntime.sleep(5)',
    outcome: ['load-error'],
    // Alone in its pid namespace with an init it cannot signal, it can kill nothing but itself.
    reason: /ProcessLookupError|killed by SIGKILL/,
    // Without a pid namespace, uid 65534 would reach every other uid-65534 process on the host.
    modes: bwrapOnly,
  },
  {
    name: 'reaching into the worker’s file descriptors',
    code: () =>
      [
        'import os',
        'try:',
        '    fds = os.listdir("/proc/%d/fd" % os.getppid())',
        'except PermissionError as exc:',
        '    raise RuntimeError("worker fds protected: %s" % exc.strerror)',
        'raise RuntimeError("worker fds visible: %r" % fds)',
      ].join('\n'),
    outcome: ['load-error'],
    reason: /RuntimeError: worker fds protected: Permission denied/,
    modes: both,
  },
  {
    name: 'reading stdin',
    code: () => 'data = input("your move: ")',
    outcome: ['load-error'],
    reason: /^code did not load: EOFError: EOF when reading a line \(candidate line 1\)$/,
    modes: both,
  },
  {
    name: 'an enormous exception message',
    code: () => 'raise ValueError("x" * 50_000_000)',
    outcome: ['load-error'],
    reason: /^code did not load: ValueError: x+/,
    modes: both,
    after: (verdict) => {
      expect(verdict.diagnostics.summary.length).toBeLessThanOrEqual(300)
      expect((verdict.diagnostics.error ?? '').length).toBeLessThan(1000)
      expect(verdict.diagnostics.error).toMatch(/\[\d+ chars total\]/)
    },
  },
  {
    name: 'files left in /tmp for the next attempt',
    code: () =>
      `open("/tmp/${pwned}-leftover", "w").write("state")\nimport os\nos.makedirs("/tmp/${pwned}-dir/sub")\nos.chmod("/tmp/${pwned}-dir", 0)\nraise RuntimeError("planted")`,
    outcome: ['load-error'],
    reason: /RuntimeError: planted/,
    // Outside bubblewrap, as a uid of its own: what that uid leaves in /tmp is swept after its attempt.
    modes: rootOrBwrap,
    after: async () => {
      const spy = await currentVerifier?.verify(
        { ...task, tests: 'assert add() == []' },
        py(`import os\ndef add():\n    return sorted(n for n in os.listdir("/tmp") if n.startswith("${pwned}"))`),
      )
      expect(spy?.diagnostics.tests?.[0]?.actual).toBe('[]')
    },
  },
]

let currentVerifier: PythonTestsVerifier | undefined

beforeAll(async () => {
  process.env.OPENAI_API_KEY = secret
  server.instance = createServer((socket) => {
    server.connections++
    server.sockets.push(socket)
  })
  await new Promise<void>((resolve) => server.instance?.listen(0, '127.0.0.1', resolve))
  const address = server.instance.address()
  server.port = typeof address === 'object' && address ? address.port : 0
})

afterAll(async () => {
  delete process.env.OPENAI_API_KEY
  for (const socket of server.sockets) socket.destroy()
  await new Promise<void>((resolve) => server.instance?.close(() => resolve()))
  for (const suffix of ['', '-2']) rmSync(`${PROJECT}/${pwned}${suffix}`, { force: true })
})

for (const mode of ['bwrap', 'none'] as const) {
  describe.runIf(mode === 'none' || BWRAP)(`hostile candidates (sandbox: ${mode})`, () => {
    const verifier = pythonTests({ sandbox: mode, timeoutMs: TIMEOUT_MS, cache: false })
    const spare = pythonTests({ sandbox: mode, timeoutMs: SPARE_TIMEOUT_MS, cache: false })

    it('runs in the requested mode and verifies a correct answer', async () => {
      expect(verifier.sandbox).toBe(mode)
      expect((await verifier.verify(task, CORRECT)).pass).toBe(true)
    })

    for (const hostile of cases.filter((c) => c.modes.includes(mode))) {
      it(`contains ${hostile.name}`, async () => {
        currentVerifier = hostile.outcome.includes('timeout') ? verifier : spare
        const verdict = await currentVerifier.verify(task, py(hostile.code()))
        expect(verdict.pass).toBe(false)
        expect(hostile.outcome, verdict.diagnostics.summary).toContain(verdict.diagnostics.outcome)
        expect(verdict.diagnostics.summary).toMatch(hostile.reason)
        expect(verdict.diagnostics.summary).not.toContain(secret)
        await hostile.after?.(verdict, mode)

        // Nothing left behind: no marked process anywhere, no stray process under any worker.
        for (const marker of hostile.markers ?? [])
          expect(await eventually(() => processesWith(marker).length === 0), `process marked ${marker}`).toBe(true)
        expect(
          await eventually(() => strayProcesses(mode).length === 0),
          `stray: ${strayProcesses(mode).join(' ')}`,
        ).toBe(true)

        // The pool still verifies a correct answer, and never grew past its size.
        const next = await spare.verify(task, CORRECT)
        expect(next.pass, next.diagnostics.summary).toBe(true)
        for (const pool of allPools()) expect(pool.pids().length).toBeLessThanOrEqual(pool.size)
      })
    }
  })
}
