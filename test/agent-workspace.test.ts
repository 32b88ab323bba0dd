// An agent's workspace and its built-in tools, for real: bubblewrap, Python, the openai SDK over
// the test server. Hostile arguments (paths out of the workspace, symlinks a command made, escapes
// from the sandbox, floods of output, the API key in the environment) are contained; the files the
// agent left are what pythonTests({ workspace: true }) judges.
import { readFileSync, writeFileSync, existsSync, rmSync, mkdirSync, readdirSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  actors,
  defaultPromptBuilder,
  feedback,
  fullHistory,
  runCell,
  verifiers,
  type CellSpec,
  type Task,
  type Verifier,
} from '../src/index.js'
import { Workspace, workspaceSettings, workspaceTools } from '../src/agents/workspace.js'
import { tool } from '../src/agents/tool.js'
import { z } from 'zod'
import { eventually, processesWith, sleepMarker, wordMarker } from '../src/verifiers/python-tests/test-helpers.js'
import { planSandbox } from '../src/verifiers/python-tests/sandbox.js'
import { startTestServer, type TestServer } from '../src/testing/index.js'

const KEY = 'fake-key-SECRET-never-written-0123456789'
const bwrap = planSandbox('auto').mode === 'bwrap'
const settings = workspaceSettings('test', { timeoutMs: 5000, maxOutputBytes: 4096 })
const signal = new AbortController().signal
const byName = Object.fromEntries(workspaceTools().map((t) => [t.definition.name, t]))
const context = (workspace: Workspace) => ({ signal, taskId: 't', attempt: 1, repeat: 0, workspace })
/** Runs a built-in tool as the agent does: its arguments checked, then its function. */
async function call(workspace: Workspace, name: string, args: object): Promise<string> {
  const tool = byName[name]!
  const checked = tool.check(args)
  if (!checked.ok) throw new Error(checked.problems)
  return String(await tool.run(checked.value, context(workspace)))
}

const outside = join(tmpdir(), `seqk-outside-${process.pid}.txt`)
let workspace: Workspace
beforeAll(() => writeFileSync(outside, 'host secret\n'))
afterAll(() => rmSync(outside, { force: true }))
beforeEach(async () => {
  workspace = await Workspace.create(
    { 'calc.py': 'def add(a, b):\n    return a - b\n', 'pkg/util.py': 'X = 1\n' },
    settings,
  )
  return () => workspace.dispose()
})

describe('the workspace tools', () => {
  it('read, write and list the files of the workspace', async () => {
    expect(await call(workspace, 'read_file', { path: 'calc.py' })).toContain('return a - b')
    expect(await call(workspace, 'write_file', { path: 'new/dir/a.txt', content: 'hi' })).toBe(
      'wrote 2 bytes to new/dir/a.txt',
    )
    expect(await call(workspace, 'list_files', {})).toBe(
      ['calc.py (32 bytes)', 'new/', 'new/dir/', 'new/dir/a.txt (2 bytes)', 'pkg/', 'pkg/util.py (6 bytes)'].join('\n'),
    )
    expect(await workspace.snapshot()).toEqual({
      files: { 'calc.py': 'def add(a, b):\n    return a - b\n', 'new/dir/a.txt': 'hi', 'pkg/util.py': 'X = 1\n' },
    })
  })

  it("leaves Python's bytecode cache out of the snapshot: binary, stamped with a time, never judged", async () => {
    await call(workspace, 'write_file', { path: '__pycache__/calc.cpython-311.pyc', content: 'stamp' })
    await call(workspace, 'write_file', { path: 'pkg/__pycache__/util.cpython-311.pyc', content: 'stamp' })
    await call(workspace, 'write_file', { path: 'pkg/__pycache__.py', content: 'Y = 2\n' })
    if (bwrap) expect(await call(workspace, 'run_python', { code: 'import calc, pkg.util' })).toMatch(/^exit code 0/)
    expect(Object.keys((await workspace.snapshot()).files).sort()).toEqual([
      'calc.py',
      'pkg/__pycache__.py',
      'pkg/util.py',
    ])
  })

  it.each([
    ['../x', /leaves the workspace/],
    ['pkg/../../x', /leaves the workspace/],
    ['/etc/passwd', /is absolute/],
    [outside, /is absolute/],
    ['a\0b', /NUL/],
  ])('refuses the path %j', async (path, message) => {
    await expect(call(workspace, 'read_file', { path })).rejects.toThrow(message)
    await expect(call(workspace, 'write_file', { path, content: 'x' })).rejects.toThrow(message)
    expect(readFileSync(outside, 'utf8')).toBe('host secret\n')
  })

  it.runIf(bwrap)('never follows a symlink a command made to a place outside the workspace', async () => {
    const made = await call(workspace, 'run_command', {
      command: `ln -s ${outside} leak && ln -s / root && ln -s /etc sys && echo made`,
    })
    expect(made).toMatch(/^exit code 0\n--- stdout ---\nmade/)
    // The links exist (the sandbox's own view), but the host side reads, writes and lists none of them.
    await expect(call(workspace, 'read_file', { path: 'leak' })).rejects.toThrow(/symlink/)
    await expect(call(workspace, 'read_file', { path: 'root/etc/passwd' })).rejects.toThrow(/symlink/)
    await expect(call(workspace, 'write_file', { path: 'leak', content: 'overwritten' })).rejects.toThrow(/symlink/)
    await expect(call(workspace, 'write_file', { path: 'sys/x', content: 'x' })).rejects.toThrow(/symlink/)
    await expect(call(workspace, 'list_files', { path: 'root' })).rejects.toThrow(/not a directory/)
    expect(await call(workspace, 'list_files', {})).toContain('leak (symlink, not followed)')
    expect(readFileSync(outside, 'utf8')).toBe('host secret\n')
    // Inside the sandbox the link points at nothing: the host's file is not there.
    expect(await call(workspace, 'run_command', { command: 'cat leak; cat root/etc/passwd' })).toMatch(
      /No such file or directory[\s\S]*No such file or directory/,
    )
    // The verifier gets regular files only.
    expect(Object.keys((await workspace.snapshot()).files).sort()).toEqual(['calc.py', 'pkg/util.py'])
  })

  it.runIf(bwrap)(
    'contains commands that try to leave: no host files, no writes outside, no network, no key',
    async () => {
      const previous = process.env.OPENAI_API_KEY
      process.env.OPENAI_API_KEY = KEY
      try {
        const out = await call(workspace, 'run_command', {
          command: [
            'id -u',
            `cat ${outside}`,
            'cat /etc/passwd',
            'touch /usr/x',
            'env',
            'cat /proc/self/environ',
            'ls /root /home',
          ].join('; '),
        })
        expect(out).not.toContain('host secret')
        expect(out).not.toContain(KEY)
        expect(out).not.toMatch(/root:x:0/)
        expect(out).toMatch(/Read-only file system/)
        expect(out).toMatch(/^65534$/m)
        const net = await call(workspace, 'run_python', {
          code: 'import socket\ntry:\n    socket.create_connection(("1.1.1.1", 80), timeout=2)\n    print("CONNECTED")\nexcept OSError as e:\n    print("refused", e)\n',
        })
        expect(net).toMatch(/refused/)
        expect(net).not.toContain('CONNECTED')
      } finally {
        if (previous === undefined) delete process.env.OPENAI_API_KEY
        else process.env.OPENAI_API_KEY = previous
      }
    },
  )

  it.runIf(bwrap)('caps huge outputs and kills a flood; a command past its time is killed', async () => {
    const big = await call(workspace, 'run_command', { command: 'head -c 200000 /dev/zero | tr "\\0" a' })
    expect(big).toMatch(/^exit code 0\n--- stdout \(first 4096 of 200000 bytes\) ---\na{4096}\n--- stderr ---\n$/)
    const flood = await call(workspace, 'run_command', { command: 'yes' })
    expect(flood).toMatch(/^was killed for writing far more output than is kept/)
    const slow = await workspaceSettings('test', { timeoutMs: 300 })
    const short = await Workspace.create({}, slow)
    try {
      expect(await call(short, 'run_command', { command: 'sleep 30' })).toMatch(
        /^timed out after 300 ms and was killed/,
      )
    } finally {
      await short.dispose()
    }
  })

  it.runIf(bwrap)('kills a command whose time runs out while its sandbox is still starting', async () => {
    // 1 ms: the kill lands while bwrap sets the sandbox up, as a 300 ms limit's did at a load of 25.
    // Before, the half-made sandbox was orphaned holding the output pipes and the call never ended.
    const instant = await Workspace.create({}, workspaceSettings('test', { timeoutMs: 1 }))
    try {
      for (let i = 0; i < 3; i++)
        expect(await call(instant, 'run_command', { command: 'sleep 600' })).toMatch(
          /^timed out after 1 ms and was killed/,
        )
    } finally {
      await instant.dispose()
    }
  })

  it.runIf(bwrap)('empties a workspace that grows past its size limit, and its tools then fail', async () => {
    const small = await Workspace.create({}, workspaceSettings('test', { maxBytes: 100_000 }))
    try {
      await call(small, 'run_command', { command: 'head -c 200000 /dev/zero > big' })
      await expect(call(small, 'list_files', {})).rejects.toThrow(
        /over its size limit of 100000 bytes, 2000 entries or 64 levels and was emptied/,
      )
      expect(await small.snapshot()).toEqual({ files: {}, tooLarge: true })
    } finally {
      await small.dispose()
    }
    expect(existsSync(small.dir)).toBe(false)
    // A flood of empty files is over the limit too: the walk that checks the size stops at 2000 entries.
    const many = await Workspace.create({}, workspaceSettings('test', {}))
    try {
      await call(many, 'run_command', { command: 'mkdir d && cd d && seq 2500 | xargs touch' })
      await expect(call(many, 'read_file', { path: 'x' })).rejects.toThrow(/was emptied/)
    } finally {
      await many.dispose()
    }
  })
})

describe.runIf(bwrap)('an agent repairs a workspace and pythonTests({ workspace: true }) judges its files', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  const task: Task = {
    id: 'repair/calc',
    prompt: 'The tests in test_calc.py fail. Fix calc.py.',
    files: {
      'calc.py': 'def add(a, b):\n    return a - b\n',
      'test_calc.py': 'from calc import add\nassert add(2, 3) == 5\nprint("ok")\n',
    },
    tests: 'assert add(2, 3) == 5\nassert add(-1, 1) == 0',
  }
  const steps = (fix: boolean) => [
    { name: 'list_files', arguments: {} },
    { name: 'read_file', arguments: { path: 'calc.py' } },
    ...(fix
      ? [{ name: 'write_file', arguments: { path: 'calc.py', content: 'def add(a, b):\n    return a + b\n' } }]
      : []),
    { name: 'run_command', arguments: { command: 'python3 test_calc.py' } },
  ]

  const cell = (verifier: Verifier): CellSpec => ({
    runId: 'ws',
    benchmark: 'ws',
    cellId: 'agent · verifier',
    tasks: [task],
    actor: actors.agent({
      model: actors.openai({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: server.openaiBaseURL, timeoutMs: 5000 }),
      tools: [],
      workspace: { timeoutMs: 5000 },
    }),
    verifier,
    mode: { name: 'verifier', feedback: feedback.verifier() },
    history: fullHistory,
    promptBuilder: defaultPromptBuilder,
    budget: 1,
    repeats: 1,
    discloseBudget: false,
    concurrency: 1,
    thresholds: {},
    errors: 'left-out',
  })

  it.each([
    [true, 'solved'],
    [false, 'failed'],
  ])('fix %s: %s', async (fix, status) => {
    server.reset()
    server.respondWith((request) => {
      const done = request.toolResults?.length ?? 0
      const next = steps(fix)[done]
      return next ? { text: '', toolCalls: [next] } : 'done'
    })
    const { trajectories } = await runCell(cell(verifiers.pythonTests({ workspace: true })))
    const [trajectory] = trajectories
    expect(trajectory!.status).toBe(status)
    const attempt = trajectory!.attempts[0]!
    const calls = attempt.episode!.turns.flatMap((t) => t.toolCalls)
    expect(calls.map((c) => c.name)).toEqual(steps(fix).map((s) => s.name))
    const run = calls.at(-1)!.result!
    expect(run).toMatch(fix ? /^exit code 0\n--- stdout ---\nok/ : /^exit code 1\n[\s\S]*AssertionError/)
    expect(attempt.verdict.diagnostics.summary).toBe(fix ? 'all 2 tests passed' : '2 of 2 tests failed')
  })

  it('verifiers.toolCalls() judges the episode the protocol hands it', async () => {
    server.reset()
    server.respondWith((request) => {
      const next = steps(false)[request.toolResults?.length ?? 0]
      return next ? { text: '', toolCalls: [next] } : 'done'
    })
    const expectedToolCalls = [{ name: 'read_file', arguments: { path: 'calc.py' } }, { name: 'write_file' }]
    const { trajectories } = await runCell({
      ...cell(verifiers.toolCalls({ order: 'strict' })),
      tasks: [{ ...task, expectedToolCalls }],
    })
    const verdict = trajectories[0]!.attempts[0]!.verdict
    expect(verdict.pass).toBe(false)
    expect(verdict.diagnostics.summary).toBe('1 of 2 expected tool calls was not made: write_file()')
  })

  it('hostile arguments from the model over the SDK are contained, and the episode goes on to its answer', async () => {
    server.reset()
    const hostile = [
      { name: 'read_file', arguments: { path: '../../../../etc/passwd' } },
      { name: 'write_file', arguments: { path: outside, content: 'overwritten' } },
      { name: 'run_command', arguments: { command: `cat ${outside}; echo escaped > ${outside}; cat /etc/shadow` } },
      { name: 'run_python', arguments: { code: 'import os\nprint(sorted(os.environ))' } },
    ]
    server.respondWith((request) => {
      const next = hostile[request.toolResults?.length ?? 0]
      return next ? { text: '', toolCalls: [next] } : 'done'
    })
    const previous = process.env.OPENAI_API_KEY
    process.env.OPENAI_API_KEY = KEY
    try {
      const { trajectories } = await runCell(cell(verifiers.pythonTests({ workspace: true })))
      const attempt = trajectories[0]!.attempts[0]!
      expect(attempt.episode!.endedBy).toBe('answer')
      const [read, write, command, python] = attempt.episode!.turns.flatMap((t) => t.toolCalls)
      expect(read!.error).toMatch(/leaves the workspace/)
      expect(write!.error).toMatch(/is absolute/)
      expect(command!.result).not.toContain('host secret')
      expect(command!.result).toMatch(/No such file or directory|Read-only file system|Permission denied/)
      expect(python!.result).not.toContain('OPENAI_API_KEY')
      expect(readFileSync(outside, 'utf8')).toBe('host secret\n')
      // The verifier judged the files the agent left: the task's, unrepaired.
      expect(attempt.verdict.pass).toBe(false)
    } finally {
      if (previous === undefined) delete process.env.OPENAI_API_KEY
      else process.env.OPENAI_API_KEY = previous
    }
  })

  it('an attempt without a workspace is an error, never a verdict', async () => {
    await expect(
      verifiers.pythonTests({ workspace: true }).verify(task, 'def add(a, b): return a + b'),
    ).rejects.toThrow(
      /judges an agent's workspace, but the attempt at task repair\/calc has none; use actors\.agent\(\{ workspace: true/,
    )
  })
})

// ---------------------------------------------------------------------------------------------
// What an agent's commands and its model may try. Without namespaces (`sandbox: 'none'`) a
// command's processes cannot be contained, so `none` is refused unless the user says `unsafe`;
// under bubblewrap each of these holds. Every case then checks that the next right and wrong
// answers (an agent that repairs the workspace, and one that does not) get their verdicts.

describe("sandbox 'none' for an agent", () => {
  it('is refused, saying what it does not protect, unless the user says unsafe', () => {
    for (const made of [
      () => workspaceSettings('actors.agent', { sandbox: 'none' }),
      () =>
        actors.agent({ model: actors.openai({ model: 'm', apiKey: KEY }), tools: [], workspace: { sandbox: 'none' } }),
    ]) {
      expect(made).toThrow(/workspace\.sandbox 'none' is refused for an agent/)
      for (const what of [
        /one shared uid with no pid namespace/,
        /survives the episode/,
        /rewrite a later attempt's workspace/,
        /process limit/,
        /through symlinks/,
        /\/tmp is the host's and persists between attempts/,
        /network is open/,
        /unsafe: true/,
      ])
        expect(made).toThrow(what)
    }
    expect(workspaceSettings('test', { sandbox: 'none', unsafe: true }).sandbox).toBe('none')
    expect(() => workspaceSettings('test', { unsafe: 'yes' as never })).toThrow(/unsafe must be true or false/)
  })
})

describe.runIf(bwrap)('hostile commands and models against an agent (bubblewrap)', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.close())

  const repair: Task = {
    id: 'hostile/calc',
    prompt: 'Fix calc.py.',
    files: { 'calc.py': 'def add(a, b):\n    return a - b\n' },
    tests: 'assert add(2, 3) == 5\nassert add(-1, 1) == 0',
  }
  type Step = { id?: string; name: string; arguments: object }
  const agentCell = (extraTools = [] as ReturnType<typeof tool>[], options = {}): CellSpec => ({
    runId: 'hostile-agent',
    benchmark: 'hostile-agent',
    cellId: 'agent · verifier',
    tasks: [repair],
    actor: actors.agent({
      model: actors.openai({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: server.openaiBaseURL, timeoutMs: 10_000 }),
      tools: extraTools,
      // A 2 500-level tree takes seconds to make on a loaded machine's disk.
      workspace: { timeoutMs: 30_000 },
      ...options,
    }),
    verifier: verifiers.pythonTests({ workspace: true, cache: false }),
    mode: { name: 'verifier', feedback: feedback.verifier() },
    history: fullHistory,
    promptBuilder: defaultPromptBuilder,
    budget: 1,
    repeats: 1,
    discloseBudget: false,
    concurrency: 1,
    thresholds: {},
    errors: 'left-out',
  })
  /** Runs one episode whose model makes `turns` (each a list of parallel calls), then answers. */
  async function episode(turns: Step[][], extraTools = [] as ReturnType<typeof tool>[], options = {}) {
    server.reset()
    let turn = 0
    server.respondWith(() => {
      const next = turns[turn++]
      return next ? { text: '', toolCalls: next.map((c) => ({ ...c, arguments: c.arguments as never })) } : 'done'
    })
    const { trajectories } = await runCell(agentCell(extraTools, options))
    return trajectories[0]!
  }
  const FIX: Step = {
    name: 'write_file',
    arguments: { path: 'calc.py', content: 'def add(a, b):\n    return a + b\n' },
  }
  /** The next right answer passes and the next wrong one fails, each an episode of its own. */
  async function expectNextVerdicts(): Promise<void> {
    const right = await episode([[FIX]])
    expect(right.status, JSON.stringify(right.attempts[0]?.verdict.diagnostics)).toBe('solved')
    const wrong = await episode([[{ name: 'list_files', arguments: {} }]])
    expect(wrong.status).toBe('failed')
    expect(wrong.attempts[0]!.verdict.diagnostics.summary).toBe('2 of 2 tests failed')
  }
  const workspaces = () => readdirSync(tmpdir()).filter((n) => n.startsWith('seqk-workspace-'))

  it('kills a daemon a command leaves running, before the command returns', async () => {
    const marker = sleepMarker()
    const t = await episode([
      [{ name: 'run_command', arguments: { command: `setsid nohup sleep ${marker} >/dev/null 2>&1 & echo left` } }],
    ])
    expect(t.attempts[0]!.episode!.turns[0]!.toolCalls[0]!.result).toMatch(/^exit code 0\n--- stdout ---\nleft/)
    expect(await eventually(() => processesWith(marker).length === 0, 3000), processesWith(marker).join(' ')).toBe(true)
    await expectNextVerdicts()
  }, 60_000)

  it('keeps the host side inside the workspace while a command swaps a directory for a symlink', async () => {
    const target = join(tmpdir(), `seqk-swap-target-${process.pid}`)
    mkdirSync(target, { recursive: true })
    for (let i = 0; i < 200; i++) writeFileSync(join(target, `f${i}`), 'keep')
    writeFileSync(join(target, 'root-only'), 'root secret')
    chmodSync(join(target, 'root-only'), 0o600)
    try {
      const swap = `mkdir -p d; (while :; do mv d d.real; ln -s ${target} d; rm -f d; mv d.real d; done) & sleep 0.3; echo swapping`
      const probes: Step[] = []
      for (let i = 0; i < 30; i++)
        probes.push(
          { name: 'write_file', arguments: { path: `d/new${i}`, content: 'x' } },
          { name: 'read_file', arguments: { path: 'd/root-only' } },
        )
      const t = await episode([[{ name: 'run_command', arguments: { command: swap } }], probes])
      const results = t.attempts[0]!.episode!.turns[1]!.toolCalls.map((c) => c.result ?? c.error)
      expect(results.join('\n')).not.toContain('root secret')
      expect(readdirSync(target).sort()).toEqual(
        [...Array.from({ length: 200 }, (_, i) => `f${i}`), 'root-only'].sort(),
      )
      expect(readFileSync(join(target, 'f7'), 'utf8')).toBe('keep')
    } finally {
      rmSync(target, { recursive: true, force: true })
    }
    await expectNextVerdicts()
  }, 60_000)

  it("holds a process hog to its own command: another attempt's commands still fork", async () => {
    const marker = sleepMarker()
    const hog = Workspace.create({}, settings)
    const other = Workspace.create({}, settings)
    const [a, b] = await Promise.all([hog, other])
    try {
      const hogging = call(a, 'run_python', {
        code: [
          'import os, time',
          'made = 0',
          'for i in range(600):',
          '    try:',
          '        if os.fork() == 0:',
          `            os.execvp('sleep', ['sleep', '${marker}'])`,
          '        made += 1',
          '    except OSError:',
          '        break',
          'time.sleep(1)',
          "print('hogged', made)",
        ].join('\n'),
      })
      await new Promise((r) => setTimeout(r, 500))
      const forked = await call(b, 'run_command', {
        command: 'for i in 1 2 3 4 5; do (true) & done; wait; echo forked',
      })
      expect(forked).toMatch(/^exit code 0\n--- stdout ---\nforked/)
      expect(await hogging).toMatch(/hogged/)
      expect(await eventually(() => processesWith(marker).length === 0, 3000)).toBe(true)
    } finally {
      await a.dispose()
      await b.dispose()
    }
    await expectNextVerdicts()
  }, 60_000)

  it("keeps /tmp from one command to the next, and from another attempt's", async () => {
    const word = wordMarker('seqk-tmp')
    const a = await Workspace.create({}, settings)
    const b = await Workspace.create({}, settings)
    try {
      expect(await call(a, 'run_command', { command: `echo ${word} > /tmp/${word}; cat /tmp/${word}` })).toContain(word)
      expect(await call(a, 'run_command', { command: `cat /tmp/${word}` })).toMatch(/No such file/)
      expect(await call(b, 'run_command', { command: `cat /tmp/${word}` })).toMatch(/No such file/)
      expect(existsSync(join('/tmp', word))).toBe(false)
    } finally {
      await a.dispose()
      await b.dispose()
    }
    await expectNextVerdicts()
  }, 60_000)

  it('ends a 2 500-level tree, a huge tree and a removal race as the answer’s failure, the workspace gone', async () => {
    const before = new Set(workspaces())
    const deep = 'import os\nfor i in range(2500):\n    os.mkdir("d")\n    os.chdir("d")\nprint("deep")'
    const t = await episode([
      [{ name: 'run_python', arguments: { code: deep } }],
      [{ name: 'list_files', arguments: {} }],
    ])
    expect(t.status).toBe('failed')
    const calls = t.attempts[0]!.episode!.turns.flatMap((x) => x.toolCalls)
    expect(calls[0]!.result).toMatch(/^exit code 0\n--- stdout ---\ndeep/)
    expect(calls[1]!.error).toMatch(/64 levels and was emptied/)
    expect(t.attempts[0]!.verdict.diagnostics.outcome).toBe('load-error')
    // A huge tree, and a writer still making files as the episode ends (it dies with its command).
    const huge = await episode([
      [{ name: 'run_command', arguments: { command: 'mkdir h && cd h && seq 5000 | xargs touch; echo made' } }],
      [{ name: 'run_command', arguments: { command: '(while :; do touch w$RANDOM; done) & sleep 0.5; echo racing' } }],
    ])
    expect(huge.status).toBe('failed')
    expect(
      await eventually(() => workspaces().filter((n) => !before.has(n)).length === 0, 5000),
      workspaces().join(' '),
    ).toBe(true)
    // On its own too: the workspace's removal handles a tree deeper than PATH_MAX.
    const ws = await Workspace.create({}, workspaceSettings('test', { timeoutMs: 30_000 }))
    expect(await call(ws, 'run_python', { code: deep })).toMatch(/^exit code 0/)
    await ws.dispose()
    expect(existsSync(ws.dir)).toBe(false)
    await expectNextVerdicts()
  }, 120_000)

  it('redacts the key from a tool that throws with it, in the record and in the model’s next turn', async () => {
    const wrapper = tool({
      name: 'fetch_status',
      description: 'Fetches the status.',
      parameters: z.object({}).strict(),
      run: () => {
        throw new Error(`401 Unauthorized: invalid key ${KEY} (Authorization: Bearer ${KEY})`)
      },
    })
    const t = await episode([[{ name: 'fetch_status', arguments: {} }]], [wrapper])
    const record = t.attempts[0]!.episode!.turns[0]!.toolCalls[0]!
    expect(record.error).toMatch(/^the tool failed: 401 Unauthorized/)
    expect(JSON.stringify(t)).not.toContain(KEY)
    for (const request of server.requests) expect(JSON.stringify(request.body)).not.toContain(KEY)
    await expectNextVerdicts()
  }, 60_000)

  it('caps the tool calls of a turn and of an episode, the cap in the error', async () => {
    let ran = 0
    const cheap = tool({
      name: 'ping',
      description: 'Answers pong.',
      parameters: z.object({}).strict(),
      run: () => {
        ran++
        return 'pong'
      },
    })
    const flood = Array.from({ length: 5000 }, (_, i) => ({ id: `c${i}`, name: 'ping', arguments: {} }))
    const t = await episode([flood], [cheap])
    const records = t.attempts[0]!.episode!.turns[0]!.toolCalls
    expect(ran).toBe(64)
    expect(records).toHaveLength(5000)
    expect(records.filter((r) => r.result === 'pong')).toHaveLength(64)
    expect(records[64]!.error).toBe(
      'not run: this turn asked for 5000 tool calls, over the limit of 64 a turn (maxToolCallsPerTurn)',
    )
    ran = 0
    const turns = Array.from({ length: 4 }, (_, k) =>
      Array.from({ length: 10 }, (_, i) => ({ id: `t${k}-${i}`, name: 'ping', arguments: {} })),
    )
    const capped = await episode(turns, [cheap], { maxToolCalls: 25, maxToolCallsPerTurn: 8 })
    const all = capped.attempts[0]!.episode!.turns.flatMap((x) => x.toolCalls)
    // Turns of 10: 8 run and 2 refused (the turn's cap), until the 25th call; its turn's next 7 meet the episode's cap.
    expect(ran).toBe(25)
    expect(all.filter((r) => r.error?.includes('(maxToolCalls)'))).toHaveLength(7)
    expect(all.find((r) => r.error?.includes('(maxToolCalls)'))!.error).toBe(
      'not run: the episode reached its limit of 25 tool calls (maxToolCalls)',
    )
    await expectNextVerdicts()
  }, 60_000)

  it("answers a reused tool-call id as the model's error, without running the call", async () => {
    let ran = 0
    const counter = tool({
      name: 'count',
      description: 'Counts.',
      parameters: z.object({}).strict(),
      run: () => String(++ran),
    })
    const t = await episode(
      [
        [
          { id: 'same', name: 'count', arguments: {} },
          { id: 'same', name: 'count', arguments: {} },
        ],
        [{ id: 'same', name: 'count', arguments: {} }],
      ],
      [counter],
    )
    const records = t.attempts[0]!.episode!.turns.flatMap((x) => x.toolCalls)
    expect(ran).toBe(1)
    expect(records.map((r) => r.result ?? r.error)).toEqual([
      '1',
      'not run: the call id "same" was already used in this episode; give each call its own id',
      'not run: the call id "same" was already used in this episode; give each call its own id',
    ])
    await expectNextVerdicts()
  }, 60_000)
})
