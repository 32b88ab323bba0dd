// How the sandbox is chosen and what command line a worker gets. What the sandbox actually contains
// is tested with real hostile code in hostile.test.ts.
import { mkdtempSync, rmSync, mkdirSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest'
import { pythonTests } from './python-tests.js'
import {
  bwrapFailureHint,
  findOnPath,
  planSandbox,
  resetSandboxPlans,
  SandboxUnavailableError,
  workerCommand,
} from './sandbox.js'

const root = process.getuid?.() === 0
const hasBwrap = findOnPath('bwrap') !== undefined

describe('planSandbox', () => {
  beforeEach(() => resetSandboxPlans())
  afterEach(() => resetSandboxPlans())

  it.runIf(hasBwrap)('uses bubblewrap where it works (auto), and reports it in the verifier settings', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    expect(planSandbox('auto').mode).toBe('bwrap')
    expect(planSandbox('bwrap').mode).toBe('bwrap')
    expect(pythonTests().sandbox).toBe('bwrap')
    expect(warn).not.toHaveBeenCalled()
    warn.mockRestore()
  })

  it('none is none, and still drops root to uid 65534 with setpriv', () => {
    const plan = planSandbox('none')
    expect(plan.mode).toBe('none')
    expect(plan.setpriv !== undefined).toBe(root)
    expect(pythonTests({ sandbox: 'none' }).sandbox).toBe('none')
  })

  describe('without bubblewrap on PATH', () => {
    const savedPath = process.env.PATH
    const savedCi = process.env.CI
    // setpriv stays reachable (as root the code still runs unprivileged); bwrap does not.
    const bin = mkdtempSync(join(tmpdir(), 'seqk-nobwrap-'))
    const setpriv = findOnPath('setpriv')
    if (setpriv) symlinkSync(setpriv, join(bin, 'setpriv'))
    beforeEach(() => {
      process.env.PATH = bin
    })
    afterEach(() => {
      process.env.PATH = savedPath
      if (savedCi === undefined) delete process.env.CI
      else process.env.CI = savedCi
    })
    afterAll(() => rmSync(bin, { recursive: true, force: true }))

    it("auto runs the bundled simulated actors' code unsandboxed, refuses a model's code naming the fix, and records the sandbox", async () => {
      // The message says more under CI=true (checked below): start from a developer's shell.
      delete process.env.CI
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
      onTestFinished(() => warn.mockRestore())
      const verifier = pythonTests({ cache: false })
      const task = { id: 'nobwrap/add', prompt: 'p', tests: 'assert add(1, 2) == 3' }
      const answer = '```python\ndef add(a, b):\n    return a + b\n```'
      const simulated = await verifier.verify(task, answer, { origin: 'bundled-simulation' })
      expect(simulated.pass).toBe(true)
      expect(simulated.sandbox).toBe('none')
      await expect(verifier.verify(task, answer)).rejects.toThrow(SandboxUnavailableError)
      await expect(verifier.verify(task, answer, { origin: 'model' })).rejects.toThrow(
        /refusing to run a model's code without a sandbox: bubblewrap \(`bwrap`\) is not on PATH\. Install it with `apt-get install bubblewrap`.*sandbox: 'none'/,
      )
      process.env.CI = 'true'
      await expect(verifier.verify(task, answer)).rejects.toThrow(/CI=true: install it in the CI job/)
      // Asked for explicitly, 'none' runs anyone's code.
      expect((await pythonTests({ sandbox: 'none', cache: false }).verify(task, answer)).pass).toBe(true)
    })

    it('auto falls back to none with ONE warning that says how to install it', () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
      expect(planSandbox('auto').mode).toBe('none')
      expect(pythonTests().sandbox).toBe('none')
      pythonTests()
      planSandbox('auto')
      expect(warn).toHaveBeenCalledTimes(1)
      const message = String(warn.mock.calls[0]?.[0])
      expect(message).toContain('bubblewrap (`bwrap`) is not on PATH')
      expect(message).toContain("the bundled simulated actors' code runs WITHOUT a sandbox")
      expect(message).toContain('code from any other actor is refused')
      expect(message).toContain('apt-get install bubblewrap')
      expect(message).toContain("sandbox: 'none'")
      warn.mockRestore()
    })

    it('bwrap throws an explanation instead', () => {
      expect(() => planSandbox('bwrap')).toThrow(SandboxUnavailableError)
      expect(() => pythonTests({ sandbox: 'bwrap' })).toThrow(/apt-get install bubblewrap/)
    })
  })
})

describe('bwrapFailureHint', () => {
  it("names Ubuntu's AppArmor restriction and its fix when the kernel setting is on, else the generic cause", () => {
    expect(bwrapFailureHint('1')).toMatch(
      /AppArmor blocks unprivileged user namespaces.*sysctl -w kernel\.apparmor_restrict_unprivileged_userns=0/,
    )
    expect(bwrapFailureHint('0')).toBe('e.g. a container without user namespaces')
    expect(bwrapFailureHint(undefined)).toBe('e.g. a container without user namespaces')
  })
})

describe('workerCommand', () => {
  const python = { path: '/usr/bin/python3', directories: ['/usr/lib/python3.11', '/usr'] }

  it('bwrap: drops privileges first (as root), then unshares everything with a read-only system', () => {
    const argv = workerCommand(
      { mode: 'bwrap', bwrap: '/usr/bin/bwrap', disableUserns: true, ...(root ? { setpriv: '/usr/bin/setpriv' } : {}) },
      python,
      ['-c', 'pass'],
    )
    const joined = argv.join(' ')
    if (root)
      expect(argv.slice(0, 6)).toEqual([
        '/usr/bin/setpriv',
        '--reuid=65534',
        '--regid=65534',
        '--clear-groups',
        '--no-new-privs',
        '/usr/bin/bwrap',
      ])
    for (const flag of [
      '--unshare-all',
      '--unshare-user',
      '--disable-userns',
      '--die-with-parent',
      '--new-session',
      '--clearenv',
    ])
      expect(argv).toContain(flag)
    expect(joined).toContain('--ro-bind /usr /usr')
    expect(joined).toContain('--tmpfs /tmp')
    expect(joined).toContain('--remount-ro / ')
    // Of /etc only the alternatives' symlinks (libblas.so.3 -> /etc/alternatives/... -> /usr/...), read-only.
    expect(joined.replace('--ro-bind /etc/alternatives /etc/alternatives', '')).not.toMatch(
      /--(ro-)?bind \/(work|root|home|etc)\b/,
    )
    expect(argv.slice(-3)).toEqual(['/usr/bin/python3', '-c', 'pass'])
    // Nothing of the parent's environment is set inside.
    const setenv = argv.flatMap((arg, i) => (arg === '--setenv' ? [argv[i + 1]] : []))
    expect(setenv.sort()).toEqual(['HOME', 'LANG', 'PATH', 'PYTHONHASHSEED', 'TMPDIR'])
  })

  it('binds an interpreter installed outside /usr read-only', () => {
    const prefix = mkdtempSync(join(tmpdir(), 'seqk-prefix-'))
    mkdirSync(join(prefix, 'bin'))
    mkdirSync(join(prefix, 'lib'))
    try {
      const argv = workerCommand(
        { mode: 'bwrap', bwrap: '/usr/bin/bwrap' },
        { path: join(prefix, 'bin/python3'), directories: [prefix, join(prefix, 'lib')] },
        [],
      )
      expect(argv.join(' ')).toContain(`--ro-bind ${prefix} ${prefix}`)
      expect(argv.join(' ')).not.toContain(`${join(prefix, 'lib')} `)
    } finally {
      rmSync(prefix, { recursive: true, force: true })
    }
  })

  it('none: only setpriv (as root) before the interpreter', () => {
    expect(workerCommand({ mode: 'none', setpriv: '/usr/bin/setpriv' }, python, ['x'])).toEqual([
      '/usr/bin/setpriv',
      '--reuid=65534',
      '--regid=65534',
      '--clear-groups',
      '--no-new-privs',
      '/usr/bin/python3',
      'x',
    ])
    expect(workerCommand({ mode: 'none' }, python, ['x'])).toEqual(['/usr/bin/python3', 'x'])
  })
})
