// Hostile candidates against the judge/worker split (judge.py, worker.py, codec.py): lying objects,
// patched builtins and harness functions, hunts for the answer key, forged and malformed frames on
// the call socket, reaching into other processes, values at the codec's limits, memory and output
// floods, calls that never return, and attacks on the *trusted* side (the judge's CPU and memory,
// the types it resolves by name) and on *other* attempts (leftover processes and kernel objects,
// concurrent verifications).
//
// Every case must end as a verdict that fails for the candidate (never a thrown infrastructure
// error), with a clear reason, within a bounded time, without growing the judge's memory or
// Node's frames, and must leave nothing behind: no stray process, no memory charged to the
// worker's cgroup, and the next correct answer still passes while the next wrong answer still
// fails.
//
// Nothing here asserts the machine's speed or free memory: a case whose point is not the clock
// runs with time to spare (SPARE_TIMEOUT_MS; on a loaded 2-core VM where a page fault costs
// ~13 µs, touching 450 MiB alone takes 1.5 s), and what an attempt leaves behind is read from
// the pool's own cgroup and the sandbox uids' files, not from the host's MemAvailable.
//
//   npx vitest run --project unit src/verifiers/python-tests/hostile-judge.test.ts
import { execFile } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import type { Task } from '../../protocol/task.js'
import type { Verdict } from '../verifier.js'
import { allPools, closeAllPools } from './pool.js'
import { pythonTests } from './python-tests.js'
import type { PythonTestsVerifier } from './python-tests.js'
import { planSandbox } from './sandbox.js'
import type { SandboxMode } from './sandbox.js'
import { descendantsOf, eventually, processesWith, sleepMarker, expectCappedOutput } from './test-helpers.js'

const ROOT = process.getuid?.() === 0
const BWRAP = planSandbox('auto').mode === 'bwrap'
const TIMEOUT_MS = 1000
/** The limit of a case whose point is not the clock: its finite work may take seconds under load. */
const SPARE_TIMEOUT_MS = 20_000
const MiB = 1024 * 1024

const task: Task = {
  id: 'hostile-judge/add',
  prompt: 'Write add(a, b).',
  tests: 'assert add(1, 2) == 3\nassert add(-1, 1) == 0',
}
const py = (...lines: string[]): string => `\`\`\`python\n${lines.join('\n')}\n\`\`\``
const CORRECT = py('def add(a, b):', '    return a + b')
const WRONG = py('def add(a, b):', '    return a - b')

// Bounds every case is held to.
/** The slowest legitimate ending: the timeout, a lost worker replaced, a self-check and a second run. */
const MAX_VERIFY_MS = 2 * TIMEOUT_MS + 4000
/** The judge (outside every sandbox and memory limit) may hold one frame and its value, not more. */
const MAX_JUDGE_GROWTH_MIB = 512
/** What Node parses at once: both streams at their cap (UTF-8, escaped), and the test records. */
const maxFrameBytes = (cap = 64 * 1024): number => 2 * cap + 128 * 1024
/** Memory still charged to a worker's cgroup after a case, beyond what it held before. */
const MAX_LEFT_CHARGED_MIB = 64

// ---------------------------------------------------------------------------------------------
// Observing the pools from the host.

function judgePids(mode: SandboxMode): number[] {
  return allPools()
    .filter((pool) => pool.spec.mode === mode)
    .flatMap((pool) => pool.pids())
}

/** Processes under the judges beyond their baseline (bwrap: bwrap, the zygote and its standby attempt process; none: the zygote and its standby). */
function strayProcesses(mode: SandboxMode): number[] {
  const baseline = mode === 'bwrap' ? 3 : 2
  return judgePids(mode)
    .map((pid) => descendantsOf(pid))
    .filter((descendants) => descendants.length > baseline)
    .flat()
}

function status(pid: number, key: string): number | undefined {
  try {
    const match = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) * 1024 : undefined
  } catch {
    return undefined
  }
}

/** Resets the judges' peak RSS (root only: /proc/<pid>/clear_refs of a non-dumpable process). */
function resetJudgePeaks(mode: SandboxMode): Map<number, number> {
  const base = new Map<number, number>()
  for (const pid of judgePids(mode)) {
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5')
    } catch {
      continue
    }
    const rss = status(pid, 'VmHWM')
    if (rss !== undefined) base.set(pid, rss)
  }
  return base
}

/** The largest peak-RSS growth of a judge since `resetJudgePeaks`, in MiB (judges that died are skipped). */
function judgeGrowthMiB(base: Map<number, number>): number {
  let growth = 0
  for (const [pid, before] of base) {
    const peak = status(pid, 'VmHWM')
    if (peak !== undefined) growth = Math.max(growth, (peak - before) / MiB)
  }
  return Math.round(growth)
}

/** Memory charged to the judges' worker cgroups (judge.py: `seqk-<judge pid>` beside the judge's own), in MiB; undefined where there are none. */
function chargedMiB(mode: SandboxMode): number | undefined {
  let total: number | undefined
  for (const pid of judgePids(mode)) {
    try {
      const lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8').trim().split('\n')
      const v1 = lines.map((l) => l.split(':')).find((f) => f[1]?.split(',').includes('memory'))
      const dir = v1
        ? `/sys/fs/cgroup/memory${v1[2] ?? ''}/seqk-${pid}`
        : `/sys/fs/cgroup${lines.find((l) => l.startsWith('0::'))?.slice(3) ?? ''}/seqk-${pid}`
      // What cannot be reclaimed: process memory and shared memory (tmpfs, /dev/shm). The page cache
      // of files an attempt read stays charged after it, but the kernel reclaims it before any limit bites.
      const stat = new Map(
        readFileSync(`${dir}/memory.stat`, 'utf8')
          .trim()
          .split('\n')
          .map((l) => l.split(' ') as [string, string]),
      )
      const bytes = (...names: string[]) => names.reduce((sum, name) => sum + Number(stat.get(name) ?? 0), 0)
      total = (total ?? 0) + (v1 ? bytes('total_rss', 'total_shmem') : bytes('anon', 'shmem')) / MiB
    } catch {
      // no cgroup (not root, or not delegated): nothing to read
    }
  }
  return total === undefined ? undefined : Math.round(total)
}

/**
 * What sandbox uids (65534, or a judge's own 0x3F000000 + pid) own in the host's shared temporary
 * places, by path (a judge's private directory aside: it goes with its judge).
 */
function sandboxEntries(): Set<string> {
  const entries = new Set<string>()
  for (const place of ['/dev/shm', '/tmp', '/var/tmp']) {
    for (const name of readdirSync(place)) {
      try {
        const uid = statSync(`${place}/${name}`).uid
        // Agent workspaces (src/agents/workspace.ts) that other test files make meanwhile belong to the
        // same sandbox uid by design; no candidate here names a directory so.
        const foreign = name.startsWith('seqk-judge-') || name.startsWith('seqk-workspace-')
        if ((uid === 65534 || uid >= 0x3f000000) && !foreign) entries.add(`${place}/${name}`)
      } catch {
        // gone meanwhile
      }
    }
  }
  return entries
}

/** Entries of sandbox uids that were not there before. */
function newSandboxEntries(before: Set<string>): string[] {
  return [...sandboxEntries()].filter((path) => !before.has(path))
}

function largestFrame(): number {
  return Math.max(0, ...allPools().map((pool) => pool.stats.largestFrameBytes))
}

/** SysV shared-memory segments of the host's IPC namespace: id, owner uid, bytes. */
function hostShmSegments(): { id: number; uid: number; bytes: number }[] {
  try {
    return readFileSync('/proc/sysvipc/shm', 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .map((f) => ({ id: Number(f[1]), bytes: Number(f[3]), uid: Number(f[7]) }))
  } catch {
    return []
  }
}

function killMarked(marker: string): void {
  for (const pid of processesWith(marker)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone
    }
  }
}

/** The verdict in one line for failure messages: summary, load error, every test's error. */
function describeVerdict(verdict: Verdict): string {
  const tests = (verdict.diagnostics.tests ?? []).map((t) => t.error ?? t.actual ?? '').filter((t) => t !== '')
  return [verdict.diagnostics.summary, verdict.diagnostics.error ?? '', ...tests].filter((t) => t !== '').join(' | ')
}

/** `verify`, with a thrown (infrastructure) error turned into a test failure that says so. */
async function verifyOrFail(verifier: PythonTestsVerifier, t: Task, answer: string): Promise<Verdict> {
  try {
    return await verifier.verify(t, answer)
  } catch (error) {
    throw new Error(`verify threw (an infrastructure error the candidate provoked): ${(error as Error).message}`)
  }
}

// ---------------------------------------------------------------------------------------------
// Python helpers the candidates share.

/** Finds the attempt's call socket (a socket at fd >= 200) and writes raw frames on it. */
const CALL_SOCKET = [
  'import json as _json, os as _os, stat as _stat, struct as _struct',
  "FD = next(fd for fd in range(200, 1024) if _os.path.exists('/proc/self/fd/%d' % fd) and _stat.S_ISSOCK(_os.fstat(fd).st_mode))",
  'def frame(message):',
  '    body = _json.dumps(message).encode()',
  "    return _struct.pack('>I', len(body)) + body",
  'def send(data):',
  '    data = memoryview(data)',
  '    while data:',
  '        data = data[_os.write(FD, data):]',
]

/** Touches every page of `mib` MiB (a calloc'd bytearray is not resident until written). */
const touch = (mib: number, indent = '    '): string[] => [
  `${indent}block = bytearray(${mib} * 1024 * 1024)`,
  `${indent}for i in range(0, len(block), 4096):`,
  `${indent}    block[i] = 1`,
]

/** The candidate's process's own harness (candidate.py's globals), one frame up from the candidate's module. */
const HARNESS_GLOBALS = [
  'import sys',
  'worker = sys._getframe(1).f_globals',
  "assert 'Calls' in worker and 'write_frame' in worker, sorted(worker)",
]

/** A class the worker describes as "a type of module M named Q" (`__module__`/`__qualname__` are the candidate's to set). */
const posingAs = (name: string, module: string, qualname: string): string[] => [
  `class ${name}:`,
  '    pass',
  `${name}.__module__ = '${module}'`,
  `${name}.__qualname__ = '${qualname}'`,
]

/** Leaks a SysV shared-memory segment of `mib` MiB, touched, detached, not removed. */
const SHM_LEAK = (mib: number): string[] => [
  'import ctypes',
  'libc = ctypes.CDLL(None, use_errno=True)',
  'libc.shmget.restype = ctypes.c_int',
  'libc.shmat.restype = ctypes.c_void_p',
  'libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]',
  'libc.shmdt.argtypes = [ctypes.c_void_p]',
  `size = ${mib} * 1024 * 1024`,
  'segment = libc.shmget(0, ctypes.c_size_t(size), 0o1600)',
  'if segment < 0:',
  "    raise OSError(ctypes.get_errno(), 'shmget')",
  'address = libc.shmat(segment, None, 0)',
  'ctypes.memset(address, 1, size)',
  'libc.shmdt(ctypes.c_void_p(address))',
  "raise RuntimeError('leaked shm segment %d' % segment)",
]

// The answer key: a value only the judge (and this process) ever holds, generated now, never on disk.
// The candidate looks for anything of its shape wherever it can read; it never contains the shape's
// literal prefix itself (nor does this file), so a find can only be the key.
const KEY_PREFIX = ['ANSW', 'ERKEY'].join('')
const answerKey = (): string => `${KEY_PREFIX}${randomBytes(8).toString('hex')}`
const KEYS = [answerKey(), answerKey(), answerKey()]
const keyTask: Task = {
  id: 'hostile-judge/key',
  prompt: 'Return the secret.',
  tests: [
    `# the secret is ${KEYS[2]}`,
    `assert answer(1) == '${KEYS[0]}'`,
    `expected = '${KEYS[1]}'`,
    'assert answer(2) == expected',
  ].join('\n'),
}
const KEY_HUNT = [
  'import gc, inspect, os, re, sys, time',
  "PATTERN = re.compile(('ANSW' + 'ERKEY') + '[0-9a-f]{16}')",
  'BPATTERN = re.compile(PATTERN.pattern.encode())',
  'found, places = {}, [0]',
  'def look(value, where):',
  '    places[0] += 1',
  '    if isinstance(value, (bytes, bytearray)):',
  '        hits = [m.decode() for m in BPATTERN.findall(value)]',
  '    elif isinstance(value, str):',
  '        hits = PATTERN.findall(value)',
  '    else:',
  '        hits = []',
  '    for hit in hits:',
  '        found.setdefault(hit, where)',
  'def hunt(arg):',
  "    look(repr(arg), 'the arguments')",
  '    gc.unfreeze()',
  '    for obj in gc.get_objects():',
  '        parts = [obj] if isinstance(obj, (str, bytes, bytearray)) else list(obj.values()) if isinstance(obj, dict) else list(obj) if isinstance(obj, (list, tuple, set, frozenset)) else []',
  '        for part in parts:',
  "            look(part, 'gc')",
  '    frame = sys._getframe()',
  '    while frame is not None:',
  '        for scope in (frame.f_locals, frame.f_globals):',
  '            for part in list(scope.values()):',
  "                look(part if isinstance(part, (str, bytes)) else repr(part)[:1000000], 'a frame')",
  '        frame = frame.f_back',
  '    for info in inspect.stack():',
  "        look(repr(info.frame.f_locals)[:1000000], 'inspect.stack()')",
  "    for pid in os.listdir('/proc'):",
  '        if not pid.isdigit(): continue',
  "        for name in ('cmdline', 'environ', 'maps', 'mem'):",
  '            try:',
  "                with open('/proc/%s/%s' % (pid, name), 'rb') as h:",
  "                    look(h.read(1 << 22), '/proc/%s/%s' % (pid, name))",
  '            except (OSError, ValueError):',
  '                pass',
  '    deadline = time.monotonic() + 0.4',
  "    for top in (os.getcwd(), '/tmp', '/dev/shm', '/var/tmp'):",
  '        for root, dirs, files in os.walk(top):',
  '            if time.monotonic() > deadline: break',
  '            for f in files:',
  '                path = os.path.join(root, f)',
  '                try:',
  '                    if os.path.getsize(path) > (1 << 20): continue',
  "                    with open(path, 'rb') as h:",
  '                        look(h.read(), path)',
  '                except OSError:',
  '                    pass',
  'def answer(x):',
  '    hunt(x)',
  "    return sorted(found.items())[0][0] if len(found) == 1 else 'found %r in %d places' % (sorted(found.items())[:10], places[0])",
]

/**
 * Tries to reach every visible process but its own: ptrace, pidfd_open + pidfd_getfd,
 * process_vm_readv, kcmp, /proc/<pid>/mem, and every /proc/<pid>/fd/* (sockets counted). Only
 * processes in PROTECTED count (None: all): outside bubblewrap other users' uid-65534 helpers on
 * this machine are visible too, and they are no part of these verifiers.
 */
const REACH = (protectedPids: number[] | undefined): string[] => [
  'import ctypes, errno, os, stat',
  'libc = ctypes.CDLL(None, use_errno=True)',
  'libc.syscall.restype = ctypes.c_long',
  `PROTECTED = ${protectedPids ? `set(${JSON.stringify(protectedPids)})` : 'None'}`,
  'me = os.getpid()',
  'class iovec(ctypes.Structure):',
  "    _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]",
  'def sc(*args):',
  '    ctypes.set_errno(0)',
  '    r = libc.syscall(*[ctypes.c_long(a) for a in args])',
  '    return r, ctypes.get_errno()',
  'def ancestry(pid):',
  '    seen = []',
  '    while pid > 1 and len(seen) < 64:',
  '        seen.append(pid)',
  '        try:',
  "            stat_line = open('/proc/%d/stat' % pid).read()",
  '        except OSError:',
  '            break',
  "        pid = int(stat_line[stat_line.rfind(')') + 2:].split()[1])",
  '    return seen',
  'succeeded, tried = [], 0',
  "for name in os.listdir('/proc'):",
  '    if not name.isdigit() or int(name) == me:',
  '        continue',
  '    pid = int(name)',
  '    if PROTECTED is not None and not PROTECTED.intersection(ancestry(pid)):',
  '        continue',
  '    tried += 1',
  '    r, e = sc(101, 16, pid, 0, 0)',
  '    if r == 0:',
  "        succeeded.append('ptrace %d' % pid)",
  '        sc(101, 17, pid, 0, 0)',
  '    r, e = sc(434, pid, 0)',
  '    if r >= 0:',
  "        succeeded.append('pidfd_open %d' % pid)",
  '        for fd in range(16):',
  '            g, _ = sc(438, r, fd, 0)',
  '            if g >= 0:',
  "                succeeded.append('pidfd_getfd %d:%d' % (pid, fd))",
  '                os.close(g)',
  '        os.close(r)',
  '    buf = ctypes.create_string_buffer(16)',
  '    local, remote = iovec(ctypes.cast(buf, ctypes.c_void_p), 16), iovec(0x400000, 16)',
  '    r, e = sc(310, pid, ctypes.addressof(local), 1, ctypes.addressof(remote), 1, 0)',
  '    if e != errno.EPERM:',
  "        succeeded.append('process_vm_readv %d (errno %d)' % (pid, e))",
  '    r, e = sc(312, me, pid, 0, 0, 0)',
  '    if r >= 0:',
  "        succeeded.append('kcmp %d' % pid)",
  '    try:',
  "        what = open('/proc/%d/cmdline' % pid, 'rb').read().split(b'\\0')[0].decode(errors='replace')",
  '    except OSError:',
  "        what = '?'",
  '    try:',
  "        with open('/proc/%d/mem' % pid, 'r+b'):",
  "            succeeded.append('/proc/%d/mem opened for writing (%s)' % (pid, what))",
  '    except OSError:',
  '        pass',
  '    try:',
  "        fds = os.listdir('/proc/%d/fd' % pid)",
  '    except OSError:',
  '        fds = []',
  '    for fd in fds:',
  '        try:',
  "            opened = os.open('/proc/%d/fd/%s' % (pid, fd), os.O_RDWR)",
  '        except OSError:',
  '            continue',
  '        if stat.S_ISSOCK(os.fstat(opened).st_mode):',
  "            succeeded.append('socket /proc/%d/fd/%s' % (pid, fd))",
  '        os.close(opened)',
  "raise RuntimeError('tried %d processes, succeeded: %s' % (tried, ', '.join(succeeded) or 'none'))",
]

/**
 * For 0.9 s, SIGKILLs every process it can see but itself and its worker: inside bubblewrap all of
 * the namespace; outside, every process descending from ROOTS (this file's judges and Node itself:
 * other users of uid 65534 on this machine are left alone), re-scanned every few ms.
 */
const KILLER = (roots: number[] | undefined): string[] => [
  'import os, signal, time',
  `ROOTS = ${roots ? `set(${JSON.stringify(roots)})` : 'None'}`,
  'me, parent = os.getpid(), os.getppid()',
  'def ancestry(pid):',
  '    seen = []',
  '    while pid > 1 and len(seen) < 64:',
  '        seen.append(pid)',
  '        try:',
  "            line = open('/proc/%d/stat' % pid).read()",
  '        except OSError:',
  '            break',
  "        pid = int(line[line.rfind(')') + 2:].split()[1])",
  '    return seen',
  'killed = set()',
  'end = time.monotonic() + 0.9',
  'while time.monotonic() < end:',
  "    for name in os.listdir('/proc'):",
  '        if not name.isdigit():',
  '            continue',
  '        pid = int(name)',
  '        if pid in (me, parent) or (ROOTS is not None and not ROOTS.intersection(ancestry(pid))):',
  '            continue',
  '        try:',
  '            os.kill(pid, signal.SIGKILL)',
  '            killed.add(pid)',
  '        except OSError:',
  '            pass',
  '    time.sleep(0.005)',
  "raise RuntimeError('killed %d processes' % len(killed))",
]

// ---------------------------------------------------------------------------------------------
// The cases.

interface Case {
  name: string
  code: (mode: SandboxMode) => string
  /** The task's tests, when not `add`'s. */
  tests?: string
  outcome: readonly Verdict['diagnostics']['outcome'][]
  /** Matched against the summary, the load error and every test's error (see describeVerdict). */
  reason: RegExp
  modes?: readonly SandboxMode[]
  /** A tighter bound on the verify's duration than MAX_VERIFY_MS. */
  maxMs?: number
  /** The attempt's limit: TIMEOUT_MS where the case accepts a timeout, else SPARE_TIMEOUT_MS. */
  timeoutMs?: number
  /** The verifier's memory limit (default 1024 MiB). */
  memoryMb?: number
  /** The verifier's output cap per stream (default 64 KiB). */
  maxOutputBytes?: number
  /** Node's frames bounded (MAX_FRAME_BYTES) during the verify: a flood meets the caps, not Node's event loop. */
  eventLoop?: boolean
  /** Markers in the command line of processes the candidate starts (killed afterwards whatever happens). */
  markers?: string[]
  /** Extra checks. */
  after?: (verdict: Verdict, mode: SandboxMode) => void | Promise<void>
  timeout?: number
}

const both: readonly SandboxMode[] = ['bwrap', 'none']
const notPlain = (type: string): RegExp => new RegExp(`returned an object of type ${type}, not a plain value`)
const ASSERTED_TWICE = /^2 of 2 tests failed \| AssertionError \| AssertionError$/
/** The actual values the verdict reports for the tests, in order. */
const actuals =
  (expected: string[]) =>
  (verdict: Verdict): void =>
    expect(verdict.diagnostics.tests?.map((t) => t.actual)).toEqual(expected)

const cases: Case[] = [
  // 1. Lying objects: nothing the candidate defined crosses; the reason names its type.
  {
    name: 'an object whose __eq__ always says yes',
    code: () =>
      py(
        'class E:',
        '    def __eq__(self, other):',
        '        return True',
        '    __hash__ = object.__hash__',
        'def add(a, b):',
        '    return E()',
      ),
    outcome: ['failed'],
    reason: notPlain('E'),
  },
  {
    name: 'an int subclass equal to everything',
    code: () =>
      py(
        'class I(int):',
        '    def __eq__(self, other):',
        '        return True',
        '    __hash__ = int.__hash__',
        'def add(a, b):',
        '    return I(a + b + 1)',
      ),
    // It crosses as the int it holds (what the official `==` would compare by, but for its lie).
    outcome: ['failed'],
    reason: ASSERTED_TWICE,
    after: actuals(['4', '1']),
  },
  {
    name: 'a str subclass equal to everything',
    code: () =>
      py(
        'class S(str):',
        '    def __eq__(self, other):',
        '        return True',
        '    __hash__ = str.__hash__',
        'def add(a, b):',
        "    return S('x')",
      ),
    outcome: ['failed'],
    reason: ASSERTED_TWICE,
    after: actuals(["'x'", "'x'"]),
  },
  {
    name: 'a list subclass equal to everything',
    code: () =>
      py('class L(list):', '    def __eq__(self, other):', '        return True', 'def add(a, b):', '    return L()'),
    outcome: ['failed'],
    reason: ASSERTED_TWICE,
    after: actuals(['[]', '[]']),
  },
  {
    name: 'a float subclass equal to everything',
    code: () =>
      py(
        'class F(float):',
        '    def __eq__(self, other):',
        '        return True',
        '    __hash__ = float.__hash__',
        'def add(a, b):',
        '    return F(0.5)',
      ),
    outcome: ['failed'],
    reason: ASSERTED_TWICE,
    after: actuals(['0.5', '0.5']),
  },
  {
    name: 'an always-equal object inside a list, a dict value and a dict key',
    tests: 'assert add(1, 2) == [3]\nassert add(-1, 1) == {0: 0}\nassert add(0, 0) == {0: 1}',
    code: () =>
      py(
        'class E:',
        '    def __eq__(self, other):',
        '        return True',
        '    def __hash__(self):',
        '        return hash(0)',
        'calls = []',
        'def add(a, b):',
        '    calls.append(1)',
        '    return [[E()], {0: E()}, {E(): 1}][len(calls) - 1]',
      ),
    outcome: ['failed'],
    reason: /^3 of 3 tests failed \| (add\(.*\) returned an object of type E, not a plain value( \| )?){3}$/,
  },
  {
    name: 'a set of objects with one hash that are all equal',
    tests: 'assert add(1, 2) == {3}',
    code: () =>
      py(
        'class H:',
        '    def __hash__(self):',
        '        return 3',
        '    def __eq__(self, other):',
        '        return True',
        'def add(a, b):',
        '    return {H()}',
      ),
    outcome: ['failed'],
    reason: notPlain('H'),
  },
  {
    name: 'an object that lies in __bool__ and __len__ (for `assert add(...)`)',
    tests: 'assert add(1, 2)\nassert len(add(1, 2)) == 3',
    code: () =>
      py(
        'class B:',
        '    def __bool__(self):',
        '        return True',
        '    def __len__(self):',
        '        return 3',
        'def add(a, b):',
        '    return B()',
      ),
    outcome: ['failed'],
    reason: notPlain('B'),
  },
  {
    name: 'an object whose __repr__ raises',
    code: () =>
      py(
        'class R:',
        '    def __repr__(self):',
        "        raise RuntimeError('no repr')",
        'def add(a, b):',
        '    return R()',
      ),
    outcome: ['failed'],
    reason: notPlain('R'),
  },
  {
    name: 'an object whose __class__ claims to be int',
    code: () =>
      py(
        'class Liar:',
        '    @property',
        '    def __class__(self):',
        '        return int',
        'def add(a, b):',
        '    return Liar()',
      ),
    outcome: ['failed'],
    reason: notPlain('Liar'),
  },
  {
    name: 'a returned function, generator and class instance',
    tests: 'assert add(1, 2) == 3\nassert add(2, 2) == 4\nassert add(3, 2) == 5',
    code: () =>
      py('class Point:', '    pass', 'def add(a, b):', '    return {1: add, 2: (x for x in [a + b]), 3: Point()}[a]'),
    outcome: ['failed'],
    reason:
      /returned an object of type function.*returned an object of type generator.*returned an object of type Point/,
  },
  {
    name: 'the tested name bound to a callable always-equal object',
    code: () =>
      py(
        'class E:',
        '    def __eq__(self, other):',
        '        return True',
        '    def __call__(self, *args):',
        '        return self',
        'add = E()',
      ),
    outcome: ['failed'],
    reason: notPlain('E'),
  },

  // 2. Patching: the candidate's process only; the judge's builtins, json, math and ast are its own.
  {
    name: 'patched builtins (bool, isinstance, len, repr, type)',
    tests:
      'assert add(1, 2) == 3\nassert isinstance(add(1, 2), int)\nassert len([add(1, 2)]) == 1\nassert bool(add(-1, 1) == 0)',
    code: () =>
      py(
        'import builtins',
        'builtins.bool = lambda *a: True',
        'builtins.isinstance = lambda *a: True',
        'builtins.len = lambda *a: 1',
        "builtins.repr = lambda *a: '3'",
        'builtins.type = lambda *a: int',
        'def add(a, b):',
        "    return 'three'",
      ),
    // The worker's own code (the codec's type() checks, describing names) runs on the patched builtins
    // too: the attempt breaks itself (exit 70 mostly; under load it has also ended another way before
    // it could say how), or answers "three". Never a pass.
    outcome: ['failed', 'load-error', 'timeout'],
    reason:
      /^3 of 4 tests failed|the Python process (exited with code \d+|was killed by \w+|ended) while loading the code|^timed out/,
  },
  {
    name: 'patched json.dumps / json.loads (every frame the worker writes becomes a "return 3")',
    code: () =>
      py(
        'import json',
        'json.dumps = lambda *a, **k: \'{"t":"return","id":1,"value":["i","3"]}\'',
        "json.loads = lambda *a, **k: {'t': 'call', 'id': 1, 'name': 'add', 'args': ['l', []], 'kwargs': ['d', []]}",
        'def add(a, b):',
        '    return 0',
      ),
    outcome: ['load-error'],
    reason: /broke the protocol while loading/,
  },
  {
    name: "the worker's own encode, write_frame and Calls.serve replaced through a frame walk to its globals",
    code: () =>
      py(
        ...HARNESS_GLOBALS,
        "worker['encode'] = lambda value, ref=None, coerce=False: ['r', 'add']",
        "original_write = worker['write_frame']",
        'def write_frame(fd, message):',
        "    if message.get('t') in ('return', 'raise', 'notplain'):",
        "        message = {'t': 'return', 'id': message.get('id'), 'value': ['b', 1], 'args': [['b', 1]]}",
        '    original_write(fd, message)',
        "worker['write_frame'] = write_frame",
        'def serve(self, depth):',
        '    while True:',
        "        message = worker['read_frame'](self.sock_fd)",
        '        if message is None:',
        '            return',
        "        original_write(self.sock_fd, {'t': 'return', 'id': message.get('id'), 'value': ['r', 'add'], 'args': [['l', []], ['l', []]]})",
        "worker['Calls'].serve = serve",
        'def add(a, b):',
        '    return 0',
      ),
    outcome: ['failed'],
    reason: /add\(1, 2\) returned an unknown or malformed value tag 'r'/,
  },
  {
    name: "the worker's globals rewritten through gc (every reply says True)",
    code: () =>
      py(
        'import gc',
        'gc.unfreeze()',
        "g = next(o for o in gc.get_objects() if type(o) is dict and 'Calls' in o and 'write_frame' in o)",
        "original = g['write_frame']",
        'def write_frame(fd, message):',
        "    if message.get('t') in ('return', 'raise', 'notplain'):",
        "        message = {'t': 'return', 'id': message.get('id'), 'value': ['b', 1]}",
        '    original(fd, message)',
        "g['write_frame'] = write_frame",
        'def add(a, b):',
        "    raise ValueError('wrong')",
      ),
    outcome: ['failed'],
    reason: /^2 of 2 tests failed \| AssertionError \| AssertionError$/,
    after: (verdict) => expect(verdict.diagnostics.tests?.map((t) => t.actual)).toEqual(['True', 'True']),
  },
  {
    name: 'math.isclose and ast patched in the candidate (the tests use math.isclose)',
    tests: 'import math\nassert math.isclose(add(0.1, 0.2), 0.3)\nassert math.isclose(add(1.0, 1.0), 2.0)',
    code: () =>
      py(
        'import math, ast',
        'math.isclose = lambda *a, **k: True',
        'ast.parse = lambda *a, **k: None',
        'ast.literal_eval = lambda *a, **k: None',
        'def add(a, b):',
        '    return a * b',
      ),
    outcome: ['failed'],
    reason: /^2 of 3 tests failed/,
  },
  {
    name: 'sys.exit and os._exit patched to do nothing (the child must still end, and a fork still not answer)',
    code: () =>
      py(
        'import os, sys',
        'os._exit = lambda code=0: None',
        'sys.exit = lambda code=0: None',
        'if os.fork() == 0:',
        '    pass',
        'def add(a, b):',
        '    return a - b',
      ),
    outcome: ['failed', 'load-error'],
    reason: /AssertionError|reply that does not match|broke the protocol/,
  },
  {
    name: 'a module-level name that poses as a builtin type (enum.bltns.BaseException) to catch the AssertionError',
    // `enum.bltns` is enum's `import builtins as bltns`: a class "of module enum named bltns.X" once
    // resolved to any builtin type in the judge (a candidate's own exception class, by contrast,
    // becomes a fresh subclass there). judge.py `_allowed_attribute` now refuses re-exports.
    tests: [
      'try:',
      '    add(1, 0)',
      "    raise AssertionError('add(1, 0) should raise ValueError')",
      'except ValueError:',
      '    pass',
    ].join('\n'),
    code: () => py('def add(a, b):', '    return a + b', ...posingAs('ValueError', 'enum', 'bltns.BaseException')),
    outcome: ['failed'],
    reason: /AssertionError: add\(1, 0\) should raise ValueError/,
  },

  // 3. Answer keys: the tests and the expected values never leave the judge.
  {
    name: 'a hunt for the answer key in gc, frames, inspect.stack(), /proc/*/{cmdline,environ,maps,mem} and temporary files',
    tests: keyTask.tests,
    code: () => py(...KEY_HUNT),
    outcome: ['failed'],
    reason: /^2 of 3 tests failed \| AssertionError \| AssertionError$/,
    after: (verdict) => {
      // What the hunt found (its reply): never one of the keys, at most older keys' lookalikes.
      const found = JSON.stringify(verdict.diagnostics.tests?.filter((t) => t.call !== undefined).map((t) => t.actual))
      for (const key of KEYS) expect(found, found).not.toContain(key)
    },
  },

  // 4. Forged frames: the candidate's word only; a lie fails its own tests.
  {
    name: 'forged "return" and "loaded" frames written on every fd 0..1023',
    code: () =>
      py(
        'import os, json, struct',
        "for m in ({'t': 'return', 'id': 1, 'value': ['i', '3']}, {'t': 'loaded', 'names': {}}):",
        '    body = json.dumps(m).encode()',
        '    for fd in range(1024):',
        '        try:',
        "            os.write(fd, struct.pack('>I', len(body)) + body)",
        '        except OSError:',
        '            pass',
        'def add(a, b):',
        '    return 0',
      ),
    outcome: ['load-error'],
    reason: /broke the protocol while loading/,
  },
  {
    name: 'replies sent before the calls, for every id',
    code: () =>
      py(
        ...CALL_SOCKET,
        "send(frame({'t': 'loaded', 'names': {'add': {'kind': 'callable'}}}))",
        'for i in range(1, 5):',
        "    send(frame({'t': 'return', 'id': i, 'value': ['i', '3']}))",
        'def add(a, b):',
        '    return 0',
      ),
    outcome: ['failed'],
    // The first forged reply answers add(1, 2) with 3 (what a correct answer would say); then the
    // real replies arrive out of order: the attempt can only lose.
    reason: /^1 of 2 tests failed/,
  },
  {
    name: 'a forged "loaded" frame that makes add a value, a module and a class of a pure module',
    tests: 'assert add(1, 2) == 3\nassert sub(1, 2) == -1\nassert mul(2, 2) == 4',
    code: () =>
      py(
        ...CALL_SOCKET,
        "send(frame({'t': 'loaded', 'names': {'add': {'kind': 'value', 'value': ['i', '3']}, 'sub': {'kind': 'module', 'module': 'os'}, 'mul': {'kind': 'class', 'module': 'subprocess', 'qualname': 'Popen'}}}))",
        'def add(a, b):',
        '    return 0',
      ),
    outcome: ['failed'],
    reason: /'int' object is not callable.*the module os, which the judge does not load.*/,
  },
  {
    name: 'a reply with the wrong id',
    code: () =>
      py(
        ...CALL_SOCKET,
        'def add(a, b):',
        "    send(frame({'t': 'return', 'id': 99, 'value': ['i', '3']}))",
        '    return a - b',
      ),
    outcome: ['failed'],
    reason: /sent a reply that does not match the call add\(1, 2\)/,
  },
  {
    name: 'duplicate replies',
    code: () =>
      py(
        ...CALL_SOCKET,
        'def add(a, b):',
        "    send(frame({'t': 'return', 'id': 1, 'value': ['i', '3']}))",
        "    send(frame({'t': 'return', 'id': 1, 'value': ['i', '3']}))",
        '    return a - b',
      ),
    outcome: ['failed'],
    reason:
      /^1 of 2 tests failed .*not run: the candidate's process had broken the protocol|does not match the call add\(-1, 1\)/,
  },
  {
    name: 'a huge length header',
    code: () =>
      py(...CALL_SOCKET, 'def add(a, b):', "    send(b'\\xff\\xff\\xff\\xff' + b'x' * 100)", '    return a + b'),
    outcome: ['failed'],
    reason: /sent a frame of 4294967295 bytes, over the limit of \d+ during the call add\(1, 2\)/,
  },
  {
    name: '16 MB of junk on the call socket',
    // A 4 KiB frame of random bytes first (so the header is not random), then the rest.
    code: () =>
      py(
        ...CALL_SOCKET,
        'def add(a, b):',
        "    send(b'\\x00\\x00\\x10\\x00' + _os.urandom(16 * 1024 * 1024))",
        '    return a + b',
      ),
    outcome: ['failed'],
    reason: /the candidate's process sent a frame that is not JSON.* during the call add\(1, 2\)/,
    eventLoop: true,
  },
  {
    name: 'a 16 MB frame (just under the limit) of JSON that is not a value',
    // ~5.6 M empty JSON objects: json.loads in the judge builds every one before decode() refuses.
    code: () =>
      py(
        ...CALL_SOCKET,
        'def add(a, b):',
        '    n = (16 * 1024 * 1024 - 64) // 3',
        '    body = b\'{"t":"return","id":1,"value":["l",[\' + b\'{},\' * (n - 1) + b\'{}]]}\'',
        "    send(_struct.pack('>I', len(body)) + body)",
        '    return a + b',
      ),
    outcome: ['failed'],
    reason:
      /add\(1, 2\) returned a value without a tag|the candidate's process sent a frame that is not JSON: MemoryError/,
    eventLoop: true,
  },
  {
    name: 'a reply dripped one byte every 200 ms',
    code: () =>
      py(
        ...CALL_SOCKET,
        'import time',
        'def add(a, b):',
        "    data = frame({'t': 'return', 'id': 1, 'value': ['i', '3']})",
        '    for i in range(len(data)):',
        '        send(data[i:i + 1])',
        '        time.sleep(0.2)',
        '    return a + b',
      ),
    outcome: ['timeout'],
    reason: /^timed out after 1000 ms in the call add\(1, 2\)/,
  },
  {
    name: 'closing the call socket',
    code: () =>
      py(...CALL_SOCKET, 'import socket', 'def add(a, b):', '    socket.socket(fileno=FD).close()', '    return a + b'),
    outcome: ['failed'],
    reason: /the candidate's process (exited with code \d+|ended|was killed by \w+) during the call add\(1, 2\)/,
  },
  {
    name: 'shutting down its sending half and sleeping',
    code: () =>
      py(
        ...CALL_SOCKET,
        'import socket, time',
        'def add(a, b):',
        '    socket.socket(fileno=_os.dup(FD)).shutdown(socket.SHUT_WR)',
        '    time.sleep(3)',
        '    return a + b',
      ),
    outcome: ['failed', 'timeout'],
    reason: /during the call add\(1, 2\)/,
  },
  {
    name: 'os.fork() inside a call, so that two processes answer',
    code: () =>
      py(
        ...CALL_SOCKET,
        'def add(a, b):',
        '    if _os.fork() == 0:',
        "        send(frame({'t': 'return', 'id': 1, 'value': ['i', format(a + b, 'x')]}))",
        '        _os._exit(0)',
        '    return a - b',
      ),
    outcome: ['failed'],
    reason: /^[12] of 2 tests failed/,
  },
  {
    name: 'a fake "armed" and "setup-error" after its code started',
    code: () =>
      py(
        ...CALL_SOCKET,
        "send(frame({'t': 'armed'}))",
        "send(frame({'t': 'setup-error', 'error': 'forged: the task is broken'}))",
        'import time',
        'time.sleep(0.2)',
        '_os._exit(0)',
      ),
    // Never a broken task (tests-error, which python-tests.ts throws): the candidate's load error.
    outcome: ['load-error'],
    reason: /broke the protocol while loading/,
  },
  {
    name: 'a fake "setup-error" as the reply to a call',
    code: () =>
      py(
        ...CALL_SOCKET,
        'def add(a, b):',
        "    send(frame({'t': 'setup-error', 'error': 'forged'}))",
        '    return a + b',
      ),
    outcome: ['failed'],
    reason: /sent a reply that does not match the call add\(1, 2\)/,
  },
  {
    name: 'forged exception records (SystemExit, KeyboardInterrupt, StopIteration, a non-class) for calls',
    tests:
      'assert add(1, 2) == 3\nassert add(2, 2) == 4\nassert add(3, 2) == 5\nassert all(map(add, [1, 2], [3, 4]))\nassert add(4, 2) == 6',
    code: () =>
      py(
        ...HARNESS_GLOBALS,
        "original = worker['write_frame']",
        "kinds = ['SystemExit', 'KeyboardInterrupt', 'GeneratorExit', 'StopIteration', 'write_frame']",
        'def write_frame(fd, message):',
        "    if message.get('t') in ('return', 'raise'):",
        "        kind = kinds.pop(0) if kinds else 'Exception'",
        "        message = {'t': 'raise', 'id': message.get('id'), 'exception': {'class': kind, 'builtin': kind, 'named': [kind], 'message': 'x', 'text': kind, 'line': 'x'}}",
        '    original(fd, message)',
        "worker['write_frame'] = write_frame",
        'def add(a, b):',
        '    return a + b',
      ),
    outcome: ['failed'],
    // all(map(...)) over a StopIteration is True in plain Python too (the map just ends early).
    reason: /^4 of 5 tests failed/,
  },

  // 5. Other processes.
  {
    name: 'ptrace, pidfd_open/pidfd_getfd, process_vm_readv, kcmp, /proc/<pid>/mem and /proc/<pid>/fd on every visible process',
    code: (mode) => py(...REACH(mode === 'bwrap' ? undefined : [process.pid, ...judgePids(mode)])),
    // Outside bubblewrap this includes the bubblewrap pool's outer `bwrap` processes (uid 65534 on the
    // host, dumpable, fd 0 = the zygote's end of the bwrap judge's control socket).
    outcome: ['load-error'],
    reason: /RuntimeError: tried \d+ processes, succeeded: none/,
  },
  {
    name: 'killing every process it can see but its worker (then the next answers on the pool)',
    code: (mode) => py(...KILLER(mode === 'bwrap' ? undefined : [process.pid, ...judgePids(mode)])),
    outcome: ['load-error'],
    reason: /RuntimeError: killed \d+ processes/,
  },
  {
    name: 'SIGINT to its worker (Python has a handler, so the namespace’s init receives it)',
    code: () => py('import os, signal, time', 'os.kill(os.getppid(), signal.SIGINT)', 'time.sleep(3)'),
    outcome: ['load-error', 'timeout'],
    reason: /the sandbox's worker process died twice|^timed out after 1000 ms while loading the code$/,
  },
  (() => {
    const marker = sleepMarker()
    return {
      name: 'killing its worker while a child of its own keeps running',
      code: () =>
        py(
          'import os, signal, subprocess, time',
          `subprocess.Popen(['sleep', '${marker}'])`,
          'time.sleep(0.1)',
          'os.kill(os.getppid(), signal.SIGKILL)',
          'time.sleep(3)',
        ),
      outcome: ['load-error', 'timeout'],
      reason: /the sandbox's worker process died twice|^timed out after 1000 ms while loading the code$/,
      markers: [marker],
    } satisfies Case
  })(),
  (() => {
    const marker = sleepMarker()
    return {
      name: 'clearing its own PR_SET_PDEATHSIG, then killing its worker and becoming a daemon',
      code: () =>
        py(
          'import ctypes, os, signal',
          'ctypes.CDLL(None).prctl(1, 0, 0, 0, 0)',
          'os.kill(os.getppid(), signal.SIGKILL)',
          `os.execv('/bin/sleep', ['sleep', '${marker}'])`,
        ),
      outcome: ['load-error', 'timeout'],
      reason:
        /the sandbox's worker process died twice|killed by SIGKILL|^timed out after 1000 ms while loading the code$/,
      markers: [marker],
    } satisfies Case
  })(),
  (() => {
    const marker = sleepMarker()
    return {
      name: 'stopping its worker with SIGSTOP while a child of its own keeps running',
      code: () =>
        py(
          'import os, signal, subprocess, time',
          `subprocess.Popen(['sleep', '${marker}'])`,
          'os.kill(os.getppid(), signal.SIGSTOP)',
          'time.sleep(3)',
        ),
      outcome: ['timeout'],
      reason: /^timed out after 1000 ms while loading the code$/,
      markers: [marker],
    } satisfies Case
  })(),

  // 6. Provoked harness errors: values at and over the codec's limits, odd values, odd exceptions.
  {
    name: '10**100000 (over the judge’s int/str digit limit)',
    code: () => py('def add(a, b):', '    return 10 ** 100000'),
    outcome: ['failed'],
    reason: /^2 of 2 tests failed \| AssertionError/,
  },
  {
    name: 'three ints at the codec’s 2M-hex-digit limit, and one over it',
    tests: 'assert add(1, 2) == 3\nassert add(-1, 1) == 0',
    code: () =>
      py('def add(a, b):', '    return [1 << (8 * 1024 * 1024 - 1)] * 3 if a == 1 else 1 << (8 * 1024 * 1024 + 4)'),
    outcome: ['failed'],
    reason: /AssertionError \| add\(-1, 1\) returned an unknown or malformed value tag 'i'/,
  },
  {
    name: 'float("nan") in sets and frozensets, -0.0 and inf',
    code: () =>
      py('def add(a, b):', "    n = float('nan')", "    return {n, float('nan'), frozenset([n]), -0.0, float('inf')}"),
    outcome: ['failed'],
    reason: /^2 of 2 tests failed \| AssertionError \| AssertionError$/,
  },
  {
    name: 'bytes, bytearray and lone surrogates',
    code: () =>
      py(
        'def add(a, b):',
        "    return [bytes(range(256)) * 1000, bytearray(b'\\x00' * 10), '\\ud800\\udfff\\x00' * 1000]",
      ),
    outcome: ['failed'],
    reason: /^2 of 2 tests failed \| AssertionError \| AssertionError$/,
  },
  {
    name: 'a 15 MB string (under the reply limit) and a 40 MB one (over it)',
    code: () => py('def add(a, b):', "    return 'x' * ((15 if a == 1 else 40) * 1024 * 1024)"),
    outcome: ['failed'],
    reason:
      /AssertionError \| the candidate's process sent a frame of \d+ bytes, over the limit of 16777216 during the call add\(-1, 1\)/,
  },
  {
    name: 'a value nested exactly 100 deep, one 101 deep and a cycle',
    tests: 'assert add(1, 2) == 3\nassert add(2, 2) == 4\nassert add(3, 2) == 5',
    code: () =>
      py(
        'def add(a, b):',
        '    v = 3',
        '    for _ in range({1: 100, 2: 101, 3: 0}[a]):',
        '        v = [v]',
        '    if a == 3:',
        '        v = [v]',
        '        v.append(v)',
        '    return v',
      ),
    outcome: ['failed'],
    reason:
      /AssertionError \| add\(2, 2\) returned a value nested deeper than 100 levels \(a cycle\?\) \| add\(3, 2\) returned a value nested deeper than 100 levels/,
  },
  {
    name: 'a list of 999,999 parts and one of 1,000,001',
    // A million parts in 6 MB (the list and 999,999 Nones: read), one more (refused by the
    // candidate's side, as not plain), then a million ints in one compact piece of 2 MB (read).
    tests: 'assert add(1, 2) == 3\nassert add(-1, 1) == 0\nassert add(2, 2) == 4',
    code: () =>
      py(
        'def add(a, b):',
        '    if a == 1:',
        '        return [None] * 999999',
        '    if a == -1:',
        '        return [None] * 1000000',
        '    return [0] * 999999',
      ),
    timeoutMs: SPARE_TIMEOUT_MS,
    outcome: ['failed'],
    reason:
      /^3 of 3 tests failed \| AssertionError \| add\(-1, 1\) returned a value with more than 1000000 parts \| AssertionError$/,
  },
  {
    name: 'an argument mutated into a cycle, a defaultdict with a lambda factory, a deque with a huge maxlen',
    tests: 'x = [1]\nassert add(x, 2) == 3\nassert add(1, 2) == 3\nassert add(2, 2) == 4',
    code: () =>
      py(
        'import collections',
        'def add(a, b):',
        '    if isinstance(a, list):',
        '        a.append(a)',
        '        return 3',
        '    return collections.defaultdict(lambda: 3) if a == 1 else collections.deque([], 2 ** 62)',
      ),
    outcome: ['failed'],
    // A defaultdict with any other factory than a built-in type crosses as the dict it holds.
    reason: /nested deeper than 100 levels.*AssertionError \| AssertionError$/,
    after: (verdict) => expect(verdict.diagnostics.tests?.map((t) => t.actual).slice(2, 3)).toEqual(['{}']),
  },
  {
    name: 'exceptions with a broken __str__, named like AssertionError, and a 50 MB message',
    tests: 'assert add(1, 2) == 3\nassert add(2, 2) == 4\nassert add(3, 2) == 5',
    code: () =>
      py(
        'class E(Exception):',
        '    def __str__(self):',
        "        raise RuntimeError('no str')",
        'class AssertionError(BaseException):',
        '    pass',
        'def add(a, b):',
        '    if a == 1:',
        '        raise E()',
        '    if a == 2:',
        '        raise AssertionError()',
        "    raise ValueError('x' * 50_000_000)",
      ),
    outcome: ['failed'],
    reason:
      /^3 of 3 tests failed \| E: <exception str\(\) failed> \(candidate line 8\) \| AssertionError \(candidate line 10\) \| ValueError: x+/,
    after: (verdict) => {
      for (const t of verdict.diagnostics.tests ?? []) expect((t.error ?? '').length).toBeLessThan(1000)
    },
  },
  {
    name: 'a directory 3000 levels deep in its working directory (the cleanup recurses)',
    code: () =>
      py(
        'import os',
        'for _ in range(3000):',
        "    os.mkdir('d')",
        "    os.chdir('d')",
        'def add(a, b):',
        '    return a - b',
      ),
    outcome: ['failed', 'load-error'],
    reason: /AssertionError|the sandbox's worker process died twice/,
  },
  {
    name: 'printing 100 MB while returning data',
    code: () =>
      py(
        'import sys',
        'def add(a, b):',
        "    chunk = 'x' * (1 << 20)",
        '    for _ in range(50):',
        '        sys.stdout.write(chunk)',
        '        sys.stderr.write(chunk)',
        '    return a - b',
      ),
    outcome: ['failed', 'timeout'],
    reason: /AssertionError|^timed out after 1000 ms in the call add/,
    eventLoop: true,
    after: (verdict) => {
      for (const stream of [verdict.diagnostics.stdout ?? '', verdict.diagnostics.stderr ?? ''])
        expect(stream.length).toBeLessThan(64 * 1024 + 200)
    },
  },

  // 7. Memory: the attempt's whole tree is bounded; the machine is not exhausted.
  {
    name: 'six forked children of 700 MiB each (pages touched)',
    code: () =>
      py(
        'import os, time',
        'pids = []',
        'for _ in range(6):',
        '    pid = os.fork()',
        '    if pid == 0:',
        ...touch(700, '        '),
        '        time.sleep(10)',
        '        os._exit(0)',
        '    pids.append(pid)',
        'for pid in pids:',
        '    os.waitpid(pid, 0)',
        "raise RuntimeError('all six children lived')",
      ),
    outcome: ['load-error', 'timeout'],
    reason:
      /killed for using more than \d+ MiB|MemoryError|killed by SIGKILL|^timed out after 1000 ms while loading the code$/,
    timeout: 60_000,
  },
  {
    name: 'a memory bomb in eight threads',
    code: () =>
      py(
        'import threading',
        'chunks = []',
        'def grab():',
        '    try:',
        '        while True:',
        ...touch(32, '            '),
        '            chunks.append(block)',
        '    except MemoryError:',
        '        pass',
        'threads = [threading.Thread(target=grab) for _ in range(8)]',
        'for t in threads:',
        '    t.start()',
        'for t in threads:',
        '    t.join()',
        "raise RuntimeError('grabbed %d MiB' % (32 * len(chunks)))",
      ),
    outcome: ['load-error', 'timeout'],
    reason:
      /RuntimeError: grabbed \d+ MiB|RuntimeError: can't start new thread|killed for using more than \d+ MiB|MemoryError|^timed out/,
    after: (verdict) => {
      const grabbed = /grabbed (\d+) MiB/.exec(verdict.diagnostics.summary)
      if (grabbed) expect(Number(grabbed[1])).toBeLessThanOrEqual(1024)
    },
  },

  // 8. Junk floods: Node's event loop stays free.
  {
    name: '16 MB on stdout and stderr, then a wrong answer',
    code: () =>
      py(
        'import sys',
        "sys.stdout.write('o' * (16 << 20))",
        "sys.stderr.write('e' * (16 << 20))",
        'sys.stdout.flush()',
        'sys.stderr.flush()',
        'def add(a, b):',
        '    return a - b',
      ),
    outcome: ['failed'],
    reason: /^2 of 2 tests failed \| AssertionError \| AssertionError$/,
    eventLoop: true,
    after: expectCappedOutput,
  },
  {
    name: 'an endless flood on stdout, stderr and the call socket',
    code: () =>
      py(
        ...CALL_SOCKET,
        'import sys, threading',
        'def junk():',
        '    while True:',
        "        send(b'\\x00\\x00\\x00\\x01' + b'x' * 65536)",
        'threading.Thread(target=junk, daemon=True).start()',
        'while True:',
        "    sys.stdout.write('o' * 65536)",
        "    sys.stderr.write('e' * 65536)",
      ),
    outcome: ['timeout', 'load-error'],
    reason:
      /^timed out after 1000 ms while loading the code$|the candidate's process sent a frame that is not JSON.* while loading the code/,
    eventLoop: true,
  },

  // 9. Timeouts name the call.
  {
    name: 'a call that never returns',
    code: () => py('def add(a, b):', '    while True:', '        pass'),
    outcome: ['timeout'],
    reason: /^timed out after 1000 ms in the call add\(1, 2\)( \||$)/,
  },
  {
    name: 'a call that never returns inside a non-equality assert',
    tests: 'assert add(1, 2) > 2',
    code: () => py('import time', 'def add(a, b):', '    time.sleep(60)'),
    outcome: ['timeout'],
    reason: /^timed out after 1000 ms in the call add\(1, 2\)( \||$)/,
  },
  {
    name: 'a call that never returns, with SIGTERM ignored and the socket kept open in a child',
    code: () =>
      py(
        'import os, signal, time',
        'signal.signal(signal.SIGTERM, signal.SIG_IGN)',
        'def add(a, b):',
        '    if os.fork() == 0:',
        '        time.sleep(60)',
        '    time.sleep(60)',
      ),
    outcome: ['timeout'],
    reason: /^timed out after 1000 ms in the call add\(1, 2\)( \||$)/,
  },

  // 10. The trusted side: the judge runs outside every sandbox and limit; nothing the candidate
  //     sends may make it spend more than a bounded time or memory.
  {
    name: 'a set of 45,000 ints with one hash (decoded by the judge, quadratically)',
    // hash(k * (2**61 - 1)) == 0 for every k. The candidate sends the tagged set itself (its own
    // encode replaced); building it would cost the candidate as much as the judge.
    code: () =>
      py(
        ...HARNESS_GLOBALS,
        'P = (1 << 61) - 1',
        "payload = ['S', [['i', format(k * P, 'x')] for k in range(1, 45000)]]",
        "original = worker['encode']",
        'def encode(value, ref=None, coerce=False):',
        '    return payload if type(value) is int else original(value, ref, coerce)',
        "worker['encode'] = encode",
        'def add(a, b):',
        '    return a + b',
      ),
    outcome: ['failed', 'timeout'],
    reason: /add\(1, 2\) returned a set or dict whose keys were crafted to share one hash/,
    // MAX_VERIFY_MS (6 s) still catches the quadratic decode (5 s quiet, several times that loaded)
    // without failing a loaded CI machine on the refusal's own time.
    timeout: 60_000,
  },
  {
    name: 'a class posing as enum.bltns.bytearray, called by the judge with a size the candidate returned',
    // `assert decode(encode(s)) == s` (HumanEval 38/50's shape): were the type resolved, the judge
    // would call it itself, outside the sandbox and every limit, then repr() the result (4 bytes of
    // text per zero byte: 2 GiB took the judge past Node's backstop, a thrown error).
    tests: "assert decode(encode('abc')) == 'abc'",
    code: () => py('def encode(s):', '    return 128 * 1024 * 1024', ...posingAs('decode', 'enum', 'bltns.bytearray')),
    outcome: ['failed'],
    reason: /^1 of 1 tests failed/,
    timeout: 60_000,
  },

  // 11. Names the candidate chooses: the tests' namespace is the tests', never a live object the
  //     candidate picked (round two).
  {
    name: '__builtins__ bound to itertools.chain, so that the tests\u2019 all() and any() would resolve through it',
    tests:
      'assert all(add(a, b) == c for a, b, c in [(1, 2, 3), (-1, 1, 0)])\nassert any(add(a, b) == 3 for a, b in [(1, 2)])',
    code: () => py('import itertools', '__builtins__ = itertools.chain', 'def add(a, b):', '    return a - b'),
    outcome: ['failed'],
    reason: ASSERTED_TWICE,
  },
  {
    name: '__builtins__ bound to collections.deque and isinstance to the candidate\u2019s own',
    tests: 'assert isinstance(add(1, 2), str)\nassert all([add(1, 2) == 3])',
    code: () =>
      py(
        'import collections',
        '__builtins__ = collections.deque',
        'isinstance = lambda *a: True',
        'def add(a, b):',
        '    return a - b',
      ),
    outcome: ['failed'],
    reason: ASSERTED_TWICE,
  },
  {
    name: 'itertools.count bound to the tested name, which the tests read as `7 in primes_up_to(10)` (a loop in the judge)',
    tests: 'assert 7 in primes_up_to(10)\nassert 4 not in primes_up_to(10)',
    code: () => py('from itertools import count as primes_up_to'),
    outcome: ['failed'],
    reason: /primes_up_to\(10\) returned an object of type count, not a plain value/,
  },
  {
    name: 'itertools.repeat bound to the tested name, which the tests would sort without end (the judge\u2019s memory)',
    tests: 'assert sorted(ones(5)) == [5, 5, 5]',
    code: () => py('from itertools import repeat as ones'),
    outcome: ['failed'],
    reason: /ones\(5\) returned an object of type repeat, not a plain value/,
  },

  // 12. The tests' own evaluation, on plain values the candidate chose, is bounded like the
  //     candidate: a Python loop by the deadline, memory by the attempt's limit, a C loop by the
  //     judge's CPU limit (the judge ends itself; a fresh one's self-check makes it the answer's).
  {
    name: 'a size that makes the tests\u2019 own Python loop run for ages',
    tests: 'assert sum(1 for _ in range(size(1))) == 3\nassert size(2) == 2',
    code: () => py('def size(n):', '    return 10 ** 15'),
    outcome: ['timeout'],
    reason:
      /^timed out after 1000 ms in the evaluation of assert sum\(1 for _ in range\(size\(1\)\)\) == 3 \| timed out after 1000 ms in the evaluation of .* \| not run: the attempt had timed out$/,
  },
  {
    name: 'a size that makes the tests allocate 800 MB in the judge (limit 256 MiB)',
    tests: 'assert len([0] * size(1)) == 3\nassert size(2) == 2',
    code: () => py('def size(n):', '    return 10 ** 8'),
    memoryMb: 256,
    outcome: ['failed'],
    reason: /MemoryError: the tests' evaluation exceeded the memory limit of 256 MiB/,
  },
  {
    name: 'a size that makes the tests\u2019 own C loop (sum over a range) never return to Python',
    tests: 'assert sum(range(size(1))) == 3',
    code: () => py('def size(n):', '    return 10 ** 15'),
    outcome: ['timeout'],
    reason: /^timed out after 1000 ms in the evaluation of the tests$/,
    // The judge's CPU limit is the time left plus 2 s of CPU; then a fresh judge starts and checks itself.
    maxMs: 60_000,
    timeout: 90_000,
    after: (verdict) => expect(verdict.diagnostics.tests ?? []).toEqual([]),
  },

  // 13. Every attempt starts clean: no kernel object, file or memory charge of one reaches the next.
  {
    name: 'a POSIX message queue left for the next attempt (mq_open)',
    code: () =>
      py(
        'import ctypes, os',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'fd = libc.mq_open(b"/seqk-leftover", os.O_CREAT | os.O_RDWR, 0o600, None)',
        'if fd == -1:',
        "    raise OSError(ctypes.get_errno(), 'mq_open refused')",
        "raise RuntimeError('queue %d left behind' % fd)",
      ),
    outcome: ['load-error'],
    reason: /PermissionError: \[Errno 1\] mq_open refused/,
  },
  {
    name: 'a new user namespace (clone and unshare with CLONE_NEWUSER)',
    code: () =>
      py(
        'import ctypes, os, platform',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'libc.syscall.restype = ctypes.c_long',
        "number = {'x86_64': 56, 'aarch64': 220}[platform.machine()]",
        'pid = libc.syscall(ctypes.c_long(number), ctypes.c_ulong(0x10000000 | 17), None, None, None, None)',
        'if pid == 0:',
        '    os._exit(0)',
        'errors = [ctypes.get_errno() if pid == -1 else 0]',
        'errors.append(ctypes.get_errno() if libc.unshare(0x10000000) == -1 else 0)',
        "raise RuntimeError('namespaces refused: %s' % errors)",
      ),
    outcome: ['load-error'],
    reason: /RuntimeError: namespaces refused: \[1, 1\]/,
  },
  {
    name: '200 MiB written to /dev/shm, charged to the worker\u2019s cgroup for the next honest answer (limit 256 MiB)',
    // In files of 1 MiB: one file may not grow past 16 MiB (RLIMIT_FSIZE).
    code: () =>
      py(
        'data = b"x" * (1 << 20)',
        'for i in range(200):',
        "    with open('/dev/shm/seqk-leftover-%d-%d' % (id(data), i), 'wb') as f:",
        '        f.write(data)',
        "raise RuntimeError('wrote 200 MiB')",
      ),
    memoryMb: 256,
    outcome: ['load-error'],
    // Inside bubblewrap /dev is read-only.
    reason:
      /RuntimeError: wrote 200 MiB|OSError: \[Errno 30\] Read-only file system|killed for using more than 256 MiB/,
    after: async (_verdict, mode) => {
      const honest = await verifierFor(mode, { memoryMb: 256 }).verify(
        task,
        py('def add(a, b):', ...touch(200), '    return a + b'),
      )
      expect(honest.pass, `an honest 200 MiB answer after it: ${describeVerdict(honest)}`).toBe(true)
    },
  },
  {
    name: '4000 directories named like working directories in /tmp and in its own temporary directory',
    code: () =>
      py(
        'import os, tempfile',
        'parent = os.path.dirname(tempfile.gettempdir())',
        'made = 0',
        'for place in ("/tmp", parent):',
        '    for i in range(2000):',
        '        try:',
        "            os.mkdir(os.path.join(place, 'seqk-py-%d-%d' % (os.getpid(), i)))",
        '            made += 1',
        '        except OSError:',
        '            break',
        "raise RuntimeError('made %d' % made)",
      ),
    outcome: ['load-error'],
    reason: /RuntimeError: made \d+/,
  },
  {
    name: '4000 directories named like working directories, then its zygote killed',
    // The zygote dies twice (a fresh one, checked, runs the code again); the next attempt, with a
    // 1 s limit, must not pay for removing what these left: its clock starts at its own fork.
    modes: ['none'],
    code: () =>
      py(
        'import os, signal, tempfile',
        'parent = os.path.dirname(tempfile.gettempdir())',
        'for place in ("/tmp", parent):',
        '    for i in range(2000):',
        '        try:',
        "            os.mkdir(os.path.join(place, 'seqk-py-%d-%d' % (os.getpid(), i)))",
        '        except OSError:',
        '            break',
        'os.kill(os.getppid(), signal.SIGKILL)',
        "raise RuntimeError('the zygote outlived its kill')",
      ),
    outcome: ['load-error', 'failed'],
    reason: /died twice while running this code|RuntimeError: the zygote outlived its kill/,
    after: async (_verdict, mode) => {
      const fast = verifierFor(mode, { timeoutMs: TIMEOUT_MS })
      const right = await verifyOrFail(fast, task, CORRECT)
      expect(right.pass, describeVerdict(right)).toBe(true)
      expect((await verifyOrFail(fast, task, WRONG)).pass).toBe(false)
    },
  },

  // 14. Big answers: nothing a candidate sends holds up Node (the answer is measured before it is
  //     read; the output is cut to its cap after decoding, so the frame is the cap's size).
  {
    name: 'a 16 MiB answer',
    code: () => py('def add(a, b):', `    return a + b  # ${'x'.repeat(16 * MiB)}`),
    outcome: ['load-error'],
    reason:
      /^the answer is over 1 MiB, over the limit of 1 MiB for its code, so it was not run \| oversized answer \(\d+ characters\)$/,
    eventLoop: true,
  },
  {
    name: '1 MiB of invalid UTF-8 on both streams under a 1 MiB output cap',
    code: () =>
      py(
        'import os',
        'def add(a, b):',
        "    os.write(1, b'\\xff' * (1 << 20))",
        "    os.write(2, b'\\xfe' * (1 << 20))",
        '    return a - b',
      ),
    maxOutputBytes: MiB,
    outcome: ['failed'],
    reason: ASSERTED_TWICE,
    eventLoop: true,
    after: (verdict) => {
      for (const stream of [verdict.diagnostics.stdout ?? '', verdict.diagnostics.stderr ?? ''])
        expect(Buffer.byteLength(stream)).toBeLessThan(MiB + 200)
    },
  },
]

// ---------------------------------------------------------------------------------------------

const verifiers = new Map<string, PythonTestsVerifier>()

/** The suite's verifier for these settings (SPARE_TIMEOUT_MS unless said otherwise), made once. */
function verifierFor(
  mode: SandboxMode,
  settings: { timeoutMs?: number; memoryMb?: number; maxOutputBytes?: number },
): PythonTestsVerifier {
  const options = { sandbox: mode, cache: false, timeoutMs: SPARE_TIMEOUT_MS, ...settings }
  const key = JSON.stringify(options)
  let made = verifiers.get(key)
  if (!made) {
    made = pythonTests(options)
    verifiers.set(key, made)
  }
  return made
}

for (const mode of ['bwrap', 'none'] as const) {
  describe.runIf(mode === 'none' || BWRAP)(`hostile candidates against the judge (sandbox: ${mode})`, () => {
    // One pool: the limits are per attempt, not part of a pool's identity.
    const verifier = verifierFor(mode, { timeoutMs: TIMEOUT_MS })
    const spare = verifierFor(mode, {})
    const verifierOf = (hostile: Case): PythonTestsVerifier =>
      verifierFor(mode, {
        timeoutMs: hostile.timeoutMs ?? (hostile.outcome.includes('timeout') ? TIMEOUT_MS : SPARE_TIMEOUT_MS),
        ...(hostile.memoryMb !== undefined ? { memoryMb: hostile.memoryMb } : {}),
        ...(hostile.maxOutputBytes !== undefined ? { maxOutputBytes: hostile.maxOutputBytes } : {}),
      })

    /** The pool still gives the right verdict to a correct and to a wrong answer, and nothing strays. */
    async function expectPoolSound(): Promise<void> {
      expect(
        await eventually(() => strayProcesses(mode).length === 0),
        `stray: ${strayProcesses(mode).join(' ')}`,
      ).toBe(true)
      const next = await verifyOrFail(spare, task, CORRECT)
      expect(next.pass, `next correct answer: ${describeVerdict(next)}`).toBe(true)
      const wrong = await verifyOrFail(spare, task, WRONG)
      expect(wrong.pass, 'next wrong answer').toBe(false)
      expect(wrong.diagnostics.summary).toBe('2 of 2 tests failed')
      for (const pool of allPools()) expect(pool.pids().length).toBeLessThanOrEqual(pool.size)
    }

    it('runs in the requested mode and verifies a correct and a wrong answer', async () => {
      expect(verifier.sandbox).toBe(mode)
      await expectPoolSound()
    })

    for (const hostile of cases.filter((c) => (c.modes ?? both).includes(mode))) {
      it(
        `contains ${hostile.name}`,
        async () => {
          const chargedBefore = chargedMiB(mode)
          const filesBefore = sandboxEntries()
          const peaks = ROOT ? resetJudgePeaks(mode) : new Map<number, number>()
          for (const pool of allPools()) pool.stats.largestFrameBytes = 0
          const used = verifierOf(hostile)
          const started = performance.now()
          try {
            const verdict = await verifyOrFail(
              used,
              { ...task, tests: hostile.tests ?? task.tests },
              hostile.code(mode),
            )
            const elapsed = Math.round(performance.now() - started)
            const text = describeVerdict(verdict)
            expect(verdict.pass, text).toBe(false)
            expect(hostile.outcome, text).toContain(verdict.diagnostics.outcome)
            expect(text).toMatch(hostile.reason)
            // Soft from here on: every bound a case breaks is reported, not only the first.
            const bound = hostile.maxMs ?? (used === verifier ? MAX_VERIFY_MS : 2 * SPARE_TIMEOUT_MS + 4000)
            expect.soft(elapsed, `verify took ${elapsed} ms (${text})`).toBeLessThan(bound)
            expect.soft(judgeGrowthMiB(peaks), "the judge's peak RSS grew (MiB)").toBeLessThan(MAX_JUDGE_GROWTH_MIB)
            if (hostile.eventLoop)
              expect
                .soft(largestFrame(), 'the largest frame Node parsed (bytes)')
                .toBeLessThan(maxFrameBytes(hostile.maxOutputBytes))
            await hostile.after?.(verdict, mode)
            for (const marker of hostile.markers ?? []) {
              // A marked process may still be on its way to exec'ing its marker: polled, not slept.
              expect
                .soft(
                  await eventually(() => processesWith(marker).length === 0, 3000),
                  `process marked ${marker} outlived the attempt: ${processesWith(marker).join(' ')}`,
                )
                .toBe(true)
            }
            // What the attempt took comes back: nothing charged to the worker's cgroup, no file of a sandbox uid left.
            if (chargedBefore !== undefined) {
              const settled = await eventually(
                () => (chargedMiB(mode) ?? 0) <= chargedBefore + MAX_LEFT_CHARGED_MIB,
                5000,
              )
              expect
                .soft(settled, `charged to the workers' cgroups: ${chargedMiB(mode)} MiB, was ${chargedBefore} MiB`)
                .toBe(true)
            }
            // (Swept after the verdict: 4000 directories take seconds on a loaded machine.)
            const swept = await eventually(() => newSandboxEntries(filesBefore).length === 0, 20_000)
            expect
              .soft(swept, `left by sandbox uids: ${newSandboxEntries(filesBefore).slice(0, 10).join(' ')}`)
              .toBe(true)
            await expectPoolSound()
          } finally {
            for (const marker of hostile.markers ?? []) killMarked(marker)
          }
        },
        hostile.timeout ?? (verifierOf(hostile) === verifier ? 30_000 : 60_000),
      )
    }

    it('keeps a leaked SysV shared-memory segment from reaching the next attempt or outliving the pool', async () => {
      const before = new Set(hostShmSegments().map((s) => s.id))
      try {
        const leak = await verifyOrFail(spare, task, py(...SHM_LEAK(700)))
        expect(leak.pass).toBe(false)
        // System V IPC is refused by the seccomp filter: nothing to leak.
        expect(describeVerdict(leak)).toMatch(
          /PermissionError: \[Errno 1\] shmget|RuntimeError: leaked shm segment \d+/,
        )
        // The next attempt (the same warm worker: the pool reuses the last one released) is a
        // correct answer that needs 450 MiB, well within its 1024 MiB (and its time: touching
        // 450 MiB takes 1.5 s where a page fault costs ~13 µs).
        const honest = await verifyOrFail(spare, task, py('def add(a, b):', ...touch(450), '    return a + b'))
        expect.soft(honest.pass, `an honest 450 MiB answer after the leak: ${describeVerdict(honest)}`).toBe(true)
        const visible = await verifyOrFail(
          spare,
          { ...task, tests: "assert add(1, 2) == ''" },
          py('def add(a, b):', "    return ''.join(open('/proc/sysvipc/shm').read().splitlines(True)[1:])"),
        )
        expect
          .soft(visible.pass, `segments the next attempt sees: ${visible.diagnostics.tests?.[0]?.actual}`)
          .toBe(true)
        // And the pool's next correct and wrong answers, as after every other hostile case.
        await expectPoolSound()
      } finally {
        // Workers gone, their IPC namespaces (bwrap) with them; what is left is on the host.
        closeAllPools()
        const left = hostShmSegments().filter((s) => !before.has(s.id) && (s.uid === 65534 || s.uid >= 0x3f000000))
        for (const segment of left)
          await promisify(execFile)('ipcrm', ['-m', String(segment.id)], { timeout: 5000 }).catch(() => undefined)
        expect
          .soft(
            left.map((s) => `${s.id} (${Math.round(s.bytes / MiB)} MiB)`),
            'SysV segments of sandbox uids left on the host',
          )
          .toEqual([])
      }
    }, 90_000)

    it("keeps every earlier attempt's code and output out of the next one's reach (frames, gc, its whole memory)", async () => {
      // The honest answer carries a token in its code and prints it; the next answer knows only the
      // token's SHA-256 and searches its frames, the garbage collector and every byte of its own
      // memory for it (a standby is a copy of the zygote's memory), to run the code it came with.
      const token = randomBytes(32).toString('hex')
      const digest = createHash('sha256').update(token).digest('hex')
      const secret = py(
        `TOKEN = '${token}'`,
        'print(TOKEN)',
        'import sys',
        'print(TOKEN, file=sys.stderr)',
        'def add(a, b):',
        '    return a + b',
      )
      expect((await verifyOrFail(spare, task, secret)).pass).toBe(true)
      const snoop = py(
        'import gc, hashlib, re, sys',
        `DIGEST = '${digest}'`,
        "RUN = re.compile(rb'[0-9a-f]{64}')",
        'def found(data):',
        '    return any(hashlib.sha256(m.group()).hexdigest() == DIGEST for m in RUN.finditer(data))',
        'where = []',
        'frame = sys._getframe()',
        'while frame is not None:',
        '    if any(isinstance(v, str) and found(v.encode("utf-8", "replace")) for v in frame.f_locals.values()):',
        '        where.append("frames")',
        '    frame = frame.f_back',
        'if any(isinstance(o, (str, bytes, bytearray)) and found(o if not isinstance(o, str) else o.encode("utf-8", "replace")) for o in gc.get_objects()):',
        '    where.append("gc")',
        // Every writable mapping, read in place (heap, arenas, stacks, data: where a copy would be).
        'import ctypes',
        'with open("/proc/self/maps") as maps:',
        '    spans = [line.split() for line in maps]',
        'for fields in spans:',
        '    if not fields[1].startswith("rw"):',
        '        continue',
        '    start, end = (int(x, 16) for x in fields[0].split("-"))',
        '    for at in range(start, end, 1 << 22):',
        '        if found(ctypes.string_at(at, min(end - at, (1 << 22) + 64))):',
        '            where.append(fields[-1] if len(fields) > 5 else "anonymous")',
        "raise RuntimeError('found the earlier attempt in: %s' % where if where else 'nothing of the earlier attempt')",
      )
      const verdict = await verifyOrFail(spare, task, snoop)
      expect(verdict.pass).toBe(false)
      expect(describeVerdict(verdict)).toMatch(/RuntimeError: nothing of the earlier attempt/)
      await expectPoolSound()
    }, 90_000)

    it('gives the right verdicts to answers verified concurrently with a process killer', async () => {
      // Warm up every judge of the pool, so that the killer shares the machine with live workers.
      await Promise.all([verifyOrFail(spare, task, CORRECT), verifyOrFail(spare, task, CORRECT)])
      const roots = mode === 'bwrap' ? undefined : [process.pid, ...judgePids(mode)]
      const killer = verifier.verify(task, py(...KILLER(roots)))
      const others: { correct: boolean; verdict: Promise<Verdict> }[] = []
      for (let i = 0; i < 6; i++) {
        others.push({ correct: i % 2 === 0, verdict: spare.verify(task, i % 2 === 0 ? CORRECT : WRONG) })
        await new Promise((r) => setTimeout(r, 100))
      }
      const attacked = await killer.then(
        (v) => v,
        (error: Error) => error,
      )
      const results = await Promise.allSettled(others.map((o) => o.verdict))
      const report = results.map(
        (r, i) =>
          `${others[i]?.correct ? 'correct' : 'wrong'}: ${r.status === 'fulfilled' ? `${r.value.pass} ${r.value.diagnostics.summary}` : `THREW ${(r.reason as Error).message}`}`,
      )
      expect(attacked instanceof Error ? attacked.message : attacked.pass).toBe(false)
      results.forEach((r, i) => {
        expect.soft(r.status, report.join('\n')).toBe('fulfilled')
        if (r.status === 'fulfilled') expect.soft(r.value.pass, report.join('\n')).toBe(others[i]?.correct)
      })
      await expectPoolSound()
    }, 90_000)
  })
}

// ---------------------------------------------------------------------------------------------
// Held-out statements out of the candidate's reach. The candidate controls the text of every
// visible record (`actual`, `error`); its process sees the calls it is asked, the calls waiting
// unread in its socket and the request's list of names. Held-out inputs must reach none of them:
// the visible records come from a process that heard of the visible statements alone, and a text
// that quotes a held-out call anyway is not shown.

const HELD_TASK: Task = {
  id: 'hostile-judge/held-out',
  prompt: 'Write triple(x), three times x.',
  tests: [
    'assert triple(70101) == 210303',
    'assert triple(70102) == 210306',
    'assert triple(70103) == 210309',
    'assert triple(70104) == 210312 or held_only_marker',
    'assert triple(70105) == 210315',
    'assert triple(70106) == 210318',
  ].join('\n'),
  heldOutTests: [1, 3, 5],
}
/** Every form a held-out input or expected value could take in a text: decimal, hex (the codec's ints), the name only it uses. */
const HELD_SECRETS = [70102, 70104, 70106, 210306, 210312, 210318]
  .flatMap((n) => [String(n), n.toString(16)])
  .concat(['held_only_marker'])
const HELD_RIGHT = py('def triple(x):', '    return 3 * x')
const HELD_WRONG = py('def triple(x):', '    return 2 * x')
/** Decodes the codec's tagged values (enough for ints and lists) and formats a call as the tests write it. */
const TAGGED = [
  'def untag(node):',
  "    if node[0] == 'i': return int(node[1], 16)",
  "    if node[0] in ('l', 't'): return [untag(x) for x in node[1]]",
  "    if node[0] == 's': return node[1]",
  '    return node',
]
const PEEK_SOCKETS = [
  'import json, os, socket',
  ...TAGGED,
  'def pending():',
  '    out = []',
  '    for fd in range(3, 1024):',
  '        try:',
  '            s = socket.socket(fileno=os.dup(fd))',
  '        except OSError:',
  '            continue',
  '        try:',
  '            s.setblocking(False)',
  '            data = s.recv(1 << 20, socket.MSG_PEEK)',
  '        except OSError:',
  "            data = b''",
  '        finally:',
  '            s.close()',
  '        out.append(data.hex())',
  '        while len(data) >= 4:',
  "            n = int.from_bytes(data[:4], 'big')",
  '            body, data = data[4:4 + n], data[4 + n:]',
  '            try:',
  '                m = json.loads(body)',
  "                out.append('%s%r' % (m.get('name'), untag(m.get('args'))))",
  '            except Exception:',
  '                out.append(repr(body))',
  '    return out',
]
const heldLeaks: { name: string; code: string; withheld?: true }[] = [
  {
    name: 'returns every call it has seen (the actual value)',
    code: py('SEEN = []', 'def triple(x):', '    SEEN.append(x)', "    return 'seen %r' % SEEN"),
  },
  {
    name: 'raises with every call it has seen (the error)',
    code: py('SEEN = []', 'def triple(x):', '    SEEN.append(x)', "    raise ValueError('seen %r' % SEEN)"),
  },
  {
    name: 'reads the calls sent ahead and waiting in its socket',
    code: py(...PEEK_SOCKETS, 'def triple(x):', "    raise ValueError('pending %s' % ' '.join(pending()))"),
  },
  {
    name: "reads the request's names from its own memory",
    code: py(
      'import gc',
      'def triple(x):',
      "    asked = [sorted(o['names']) for o in gc.get_objects() if type(o) is dict and o.get('t') == 'request' and 'names' in o]",
      "    raise ValueError('names %r' % asked)",
    ),
  },
  {
    name: 'quotes a held-out call it knew beforehand (not shown)',
    code: py('def triple(x):', "    return 'did you mean triple(70104)?'"),
    withheld: true,
  },
]

for (const mode of ['bwrap', 'none'] as const) {
  describe.runIf(mode === 'none' || BWRAP)(
    `held-out statements out of the candidate's reach (sandbox: ${mode})`,
    () => {
      const held = verifierFor(mode, { timeoutMs: SPARE_TIMEOUT_MS })

      it('judges a right and a wrong answer with every statement, and shows only the visible ones', async () => {
        const right = await verifyOrFail(held, HELD_TASK, HELD_RIGHT)
        expect(right.pass, describeVerdict(right)).toBe(true)
        const wrong = await verifyOrFail(held, HELD_TASK, HELD_WRONG)
        expect(wrong.pass).toBe(false)
        expect(wrong.heldOut).toEqual({ statements: 6, tests: [1, 3, 5], failed: [1, 3, 5], visiblePass: false })
        expect(wrong.diagnostics.tests?.map((t) => t.index)).toEqual([0, 2, 4])
      })

      for (const leak of heldLeaks) {
        it(`keeps held-out inputs out of feedback when the candidate ${leak.name}`, async () => {
          const verdict = await verifyOrFail(held, HELD_TASK, leak.code)
          expect(verdict.pass).toBe(false)
          expect(verdict.heldOut?.tests).toEqual([1, 3, 5])
          const shown = verdict.diagnostics.tests ?? []
          expect(shown.map((t) => t.index)).toEqual([0, 2, 4])
          // The candidate did write its text into the visible records (the scan looks where a leak would be).
          const texts = shown.map((t) => `${t.actual ?? ''} ${t.error ?? ''}`).join(' | ')
          if (leak.withheld) expect(shown.map((t) => t.actual)).toEqual(Array(3).fill(WITHHELD_TEXT))
          else expect(texts).toMatch(/seen|pending|names/)
          // Everything feedback, a critic or an annotator could read (the code is the candidate's own).
          const everything = JSON.stringify({ ...verdict, extracted: '' })
          for (const secret of HELD_SECRETS) expect(everything, `${secret} in ${texts}`).not.toContain(secret)
          // The next right and wrong answers on the same pool still get their verdicts.
          expect((await verifyOrFail(held, HELD_TASK, HELD_RIGHT)).pass).toBe(true)
          const wrong = await verifyOrFail(held, HELD_TASK, HELD_WRONG)
          expect(wrong.pass).toBe(false)
          expect(wrong.heldOut?.failed).toEqual([1, 3, 5])
        }, 60_000)
      }
    },
  )
}

/** What a visible record shows instead of a text that quotes a held-out call (attempt.py WITHHELD). */
const WITHHELD_TEXT = '[not shown: this text quotes a held-out test]'

// ---------------------------------------------------------------------------------------------
// The verdict cache under chance: a coin's verdict is never handed from one draw to the next.

describe('the verdict cache and an answer that flips a coin', () => {
  const coin: Task = { id: 'hostile-judge/coin', prompt: 'Return 1.', tests: 'assert coin() == 1' }
  const flips = [
    py('import random', 'def coin():', '    return random.randint(0, 1)'),
    py('def coin():', "    return __import__('os').urandom(1)[0] % 2"),
  ]
  const DRAWS = 48
  // 48 fair draws: 24 ± 3.5; outside 10..38 has a chance of about 1 in 50 000.
  const [LOW, HIGH] = [10, 38]

  for (const [index, code] of flips.entries()) {
    it(`gives coin ${index + 1} a pass rate within sampling error of cache: false`, async () => {
      const cached = pythonTests({ timeoutMs: SPARE_TIMEOUT_MS })
      const uncached = pythonTests({ timeoutMs: SPARE_TIMEOUT_MS, cache: false })
      let withCache = 0
      let without = 0
      for (let i = 0; i < DRAWS; i++) {
        if ((await verifyOrFail(cached, coin, code)).pass) withCache++
        if ((await verifyOrFail(uncached, coin, code)).pass) without++
      }
      expect(cached.stats.cacheHits).toBe(0)
      expect(cached.stats.runs).toBe(DRAWS)
      expect(withCache, `passes with the cache: ${withCache} of ${DRAWS}`).toBeGreaterThanOrEqual(LOW)
      expect(withCache).toBeLessThanOrEqual(HIGH)
      expect(without, `passes without the cache: ${without} of ${DRAWS}`).toBeGreaterThanOrEqual(LOW)
      expect(without).toBeLessThanOrEqual(HIGH)
      // The next right and wrong answers: a deterministic one is reused once two runs agreed.
      const right = py(`# right answer ${index}`, 'def coin():', '    return 1')
      for (let i = 0; i < 3; i++) expect((await verifyOrFail(cached, coin, right)).pass).toBe(true)
      expect(cached.stats.cacheHits).toBe(1)
      expect((await verifyOrFail(cached, coin, py('def coin():', '    return 0'))).pass).toBe(false)
    }, 120_000)
  }
})
