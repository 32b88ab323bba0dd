// The published package, used the way a user uses it: `npm pack` (which builds dist/ and schemas/
// through prepack), the README's install command with the tarball (`npm i -D <tarball>
// vitest@<pin> -E`) in a fresh project with its own vitest.config.ts, then the quick start's
// `vitest run --config vitest.evals.config.ts` there with our reporter and setup file; a plain
// `vitest run` runs the project's unit tests and no eval. The project's files are in
// test/pack-fixture/ (type-checked here against src/ through the repo's paths, and there against
// the packed declarations). Last, the lowest and the newest Vitest the peer range allows each run
// an eval there.
import { spawn } from 'node:child_process'
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RunSummarySchema, TrajectorySchema, type RunSummary, type Trajectory } from '../src/core/schemas.js'
import { cleanEnv } from './fixture-project.js'

const repo = fileURLToPath(new URL('..', import.meta.url))
const fixture = fileURLToPath(new URL('./pack-fixture/', import.meta.url))
const repoPackage = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
  name: string
  version: string
  devDependencies: Record<string, string>
  peerDependencies: Record<string, string>
}

interface Finished {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  /** stdout then stderr, for assertion messages and searches. */
  output: string
}

/**
 * Runs a command without blocking this worker's event loop; kills its whole process group (npx,
 * vitest and its workers, python) when it outlives `timeoutMs`.
 */
function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: Record<string, string>; timeoutMs: number },
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: cleanEnv({ CI: 'true', ...options.env }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => {
      stderr += `\n[pack.test] ${command} ${args.join(' ')} timed out after ${options.timeoutMs} ms; killed\n`
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        child.kill('SIGKILL')
      }
    }, options.timeoutMs)
    child.on('error', (error) => (clearTimeout(timer), reject(error)))
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr, output: `${stdout}\n${stderr}` })
    })
  })
}

const tmp = mkdtempSync(join(tmpdir(), 'seqk-pack-'))
const packDir = join(tmp, 'pack')
const project = join(tmp, 'project')
let tarball = ''
let tarEntries: string[] = []

/** Runs vitest in the temporary project through its own local install. */
function vitestInProject(args: readonly string[], env: Record<string, string> = {}): Promise<Finished> {
  return run('npx', ['--no', '--', 'vitest', ...args], { cwd: project, env, timeoutMs: 120_000 })
}

/**
 * `npm <args>` against the registry in the temporary project. npm waits up to five minutes on a
 * stalled fetch by default: here a fetch gives up after 60 s and npm retries it, and an install
 * that still hangs past its time is run once more (the registry's hang is not the package's fault;
 * both tries are in the output when both fail).
 */
async function npmInProject(args: readonly string[]): Promise<Finished> {
  const flags = ['--fetch-timeout=60000', '--fetch-retries=4', '--fetch-retry-maxtimeout=20000']
  const first = await run('npm', [...args, ...flags], { cwd: project, timeoutMs: 180_000 })
  if (first.code !== null) return first
  const second = await run('npm', [...args, ...flags], { cwd: project, timeoutMs: 180_000 })
  return { ...second, output: `${first.output}\n[pack.test] tried again:\n${second.output}` }
}

/** The quick start's eval command: the evals' own config, so a plain `vitest` never runs them. */
const EVALS = ['run', '--config', 'vitest.evals.config.ts']

function readRun(runId: string): { summary: RunSummary; trajectories: Trajectory[]; dir: string } {
  const dir = join(project, '.seqk', 'runs', runId)
  const summary = RunSummarySchema.parse(JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')))
  const lines = readFileSync(join(dir, 'trajectories.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
  const trajectories = lines.map((line, i) => {
    const parsed = TrajectorySchema.safeParse(JSON.parse(line))
    if (!parsed.success)
      throw new Error(`trajectories.jsonl line ${i + 1} does not match TrajectorySchema: ${parsed.error.message}`)
    return parsed.data
  })
  return { summary, trajectories, dir }
}

const TINY = 'tiny self-invoking python'
const TINY_CELLS = ['reviser', 'stubborn'].flatMap((actor) =>
  ['binary', 'verifier', 'independent'].map((mode) => `simulated:${actor} · ${mode}`),
)
/** A tiny cell's verdict: its sequential cells hold thresholds; its independent ones check nothing (never shown as a pass). */
const tinyVerdict = (cellId: string) => (cellId.endsWith('independent') ? 'no-thresholds' : 'pass')

beforeAll(async () => {
  mkdirSync(packDir)
  const packed = await run('npm', ['pack', '--pack-destination', packDir], { cwd: repo, timeoutMs: 180_000 })
  if (packed.code !== 0) throw new Error(`npm pack failed (exit ${packed.code}):\n${packed.output}`)
  const tgz = readdirSync(packDir).filter((name) => name.endsWith('.tgz'))
  if (tgz.length !== 1) throw new Error(`expected one tarball in ${packDir}, found ${JSON.stringify(tgz)}`)
  tarball = join(packDir, tgz[0]!)
  const listed = await run('tar', ['-tzf', tarball], { cwd: tmp, timeoutMs: 30_000 })
  if (listed.code !== 0) throw new Error(`tar -tzf failed:\n${listed.output}`)
  tarEntries = listed.stdout.split('\n').filter((line) => line !== '')

  // The user's project: its own package.json, config, evals and unit tests; nothing from the repo
  // but the tarball.
  mkdirSync(project)
  for (const name of ['vitest.config.ts', 'vitest.evals.config.ts', 'evals', 'unit'])
    cpSync(join(fixture, name), join(project, name), { recursive: true })
  const pin = (name: string): string => {
    const version = repoPackage.devDependencies[name]
    if (!version) throw new Error(`the repo's package.json pins no ${name}`)
    return version
  }
  const userPackage = {
    name: 'seqk-pack-test-project',
    private: true,
    type: 'module',
    devDependencies: { '@types/node': pin('@types/node'), typescript: pin('typescript'), vite: pin('vite') },
  }
  writeFileSync(join(project, 'package.json'), `${JSON.stringify(userPackage, null, 2)}\n`)
  // Strict, and checks the packed .d.ts files too (skipLibCheck off).
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2023'],
      types: ['node'],
      strict: true,
      noEmit: true,
      skipLibCheck: false,
    },
    include: ['evals', 'unit', 'vitest.config.ts', 'vitest.evals.config.ts'],
  }
  writeFileSync(join(project, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`)
  // The README's install command, with the tarball for the package name.
  const installed = await npmInProject([
    'i',
    '-D',
    tarball,
    `vitest@${pin('vitest')}`,
    '-E',
    '--prefer-offline',
    '--no-audit',
    '--no-fund',
  ])
  if (installed.code !== 0)
    throw new Error(`npm install of the tarball failed (exit ${installed.code}):\n${installed.output}`)
}, 420_000)

// The project holds three installs of Vitest by now: on a loaded machine removing them takes a while.
afterAll(async () => {
  if (process.env.SEQK_KEEP_TMP) console.log(`pack.test: kept ${tmp}`)
  else await rm(tmp, { recursive: true, force: true })
}, 120_000)

describe('the packed package', () => {
  it("installs with the README's command: -E saves the exact Vitest, the tarball as a file: dependency", () => {
    const saved = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>
    }
    expect(saved.devDependencies.vitest).toBe(repoPackage.devDependencies.vitest)
    expect(saved.devDependencies['vitest-seqk']).toMatch(/^file:.*vitest-seqk-[\d.]+\.tgz$/)
    // What users install next to us is a range, not our pin.
    expect(
      JSON.parse(readFileSync(join(project, 'node_modules', 'vitest-seqk', 'package.json'), 'utf8')).peerDependencies,
    ).toEqual({ vitest: '>=4.1 <5' })
  })

  it('holds the build, the schemas and the runtime assets, and nothing from the workspace', () => {
    const files = tarEntries.map((entry) => entry.replace(/^package\//, ''))
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/verifiers/python-tests/judge.py',
        'dist/verifiers/python-tests/worker.py',
        'dist/verifiers/python-tests/codec.py',
        'schemas/trajectory.schema.json',
        'schemas/summary.schema.json',
      ]),
    )
    const stray = files.filter(
      (f) =>
        /^(src|test|evals|fixtures|scripts|node_modules|coverage)\//.test(f) ||
        /(^|\/)\.seqk\//.test(f) ||
        /\.(test|bench)\.|\.tgz$|\.map$|tsconfig/.test(f),
    )
    expect(stray).toEqual([])
    // Every entry point the exports map names is in the tarball.
    const pkg = JSON.parse(readFileSync(join(project, 'node_modules', 'vitest-seqk', 'package.json'), 'utf8')) as {
      exports: Record<string, string | Record<string, string>>
    }
    for (const [entry, target] of Object.entries(pkg.exports)) {
      for (const path of typeof target === 'string' ? [target] : Object.values(target)) {
        const file = path.replace(/^\.\//, '')
        if (file.endsWith('*'))
          expect(
            files.some((f) => f.startsWith(file.slice(0, -1))),
            `${entry} → ${path}`,
          ).toBe(true)
        else expect(files, `${entry} → ${path}`).toContain(file)
      }
    }
  })

  it('imports at run time only its dependencies, its peers and Node built-ins', () => {
    const installed = join(project, 'node_modules', 'vitest-seqk')
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { name: string } & Partial<
      Record<'dependencies' | 'peerDependencies' | 'optionalDependencies', Record<string, string>>
    >
    const allowed = new Set([
      pkg.name,
      ...Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies }),
    ])
    const packageOf = (specifier: string): string =>
      specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/')
    const offending: string[] = []
    for (const file of tarEntries
      .filter((entry) => entry.endsWith('.js'))
      .map((entry) => entry.replace(/^package\//, ''))) {
      const lines = readFileSync(join(installed, file), 'utf8').split('\n')
      for (const line of lines) {
        if (/^\s*(\*|\/\/|\/\*)/.test(line)) continue // JSDoc examples are not imports
        const specifiers = [
          ...line.matchAll(
            /^(?:import|export)\b.*?\bfrom\s+['"]([^'"]+)['"]|^import\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
          ),
        ].map((m) => m[1] ?? m[2] ?? m[3]!)
        for (const specifier of specifiers) {
          if (specifier.startsWith('.') || specifier.startsWith('node:')) continue
          if (!allowed.has(packageOf(specifier))) offending.push(`${file}: ${specifier}`)
        }
      }
    }
    expect(offending, 'bare imports of packages that are not dependencies or peerDependencies').toEqual([])
  })

  it('installs as a real copy whose entry points load in plain Node', async () => {
    const installed = join(project, 'node_modules', 'vitest-seqk')
    expect(lstatSync(installed).isSymbolicLink()).toBe(false)
    for (const source of ['judge.py', 'worker.py', 'codec.py'])
      expect(existsSync(join(installed, 'dist/verifiers/python-tests', source)), source).toBe(true)
    expect(existsSync(join(installed, 'schemas/trajectory.schema.json'))).toBe(true)
    expect(existsSync(join(installed, 'src'))).toBe(false)
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { name: string; version: string }
    expect(pkg).toMatchObject({ name: repoPackage.name, version: repoPackage.version })

    const script = [
      "const metrics = await import('vitest-seqk/metrics')",
      "const reporter = await import('vitest-seqk/reporter')",
      "const main = await import('vitest-seqk')",
      "const cells = await import('vitest-seqk/cells')",
      "const schema = await import('vitest-seqk/schemas/trajectory.schema.json', { with: { type: 'json' } })",
      'console.log(JSON.stringify({ pass: metrics.passAtK(5, 2, 1), reporter: typeof reporter.default, seqEval: typeof main.seqEval, runCell: typeof main.runCell, planCells: typeof cells.planCells, schema: typeof schema.default }))',
    ].join('\n')
    const loaded = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: project,
      timeoutMs: 30_000,
    })
    expect(loaded.code, loaded.output).toBe(0)
    expect(JSON.parse(loaded.stdout.trim().split('\n').at(-1)!)).toEqual({
      pass: expect.closeTo(0.4, 12),
      reporter: 'function',
      seqEval: 'function',
      runCell: 'function',
      planCells: 'function',
      schema: 'object',
    })
  })

  it('type-checks user code against the packed declarations', async () => {
    const checked = await run('npx', ['--no', '--', 'tsc', '-p', 'tsconfig.json'], { cwd: project, timeoutMs: 120_000 })
    expect(checked.code, checked.output).toBe(0)
  }, 130_000)
})

describe('a user project with the installed package', () => {
  it('runs `vitest run --config vitest.evals.config.ts` with the seqk reporter and writes the run artifacts', async () => {
    const runId = 'pack-pass'
    const result = await vitestInProject(EVALS, { SEQK_RUN_ID: runId })
    expect(result.code, result.output).toBe(0)

    // The table: its title, then one row per cell.
    expect(result.stdout).toMatch(new RegExp(`${TINY} — K=3, 3 tasks × 2 repeats`))
    // The independent cells here assert nothing: "no thresholds", not a pass they never earned.
    for (const cell of TINY_CELLS)
      expect(result.stdout).toMatch(
        new RegExp(`^ ${cell}\\s+(Seq|Pass)\\s+\\d.*${cell.endsWith('independent') ? 'no thresholds' : 'pass'}$`, 'm'),
      )
    // The low-level eval ran with the matchers the setup file registered.
    expect(result.stdout).toMatch(/evals\/low-level\.eval\.ts \(2 tests\)/)
    expect(result.output).not.toMatch(/Invalid Chai property|toReachSeqAt is not a function/)

    const { summary, trajectories, dir } = readRun(runId)
    expect(summary.runId).toBe(runId)
    expect(readFileSync(join(dir, '..', 'latest'), 'utf8').trim()).toBe(runId)
    // Only seqEval cells reach the summary: runCell in a plain test leaves no meta.
    expect(summary.benchmarks.map((b) => [b.name, b.file])).toEqual([[TINY, 'evals/tiny.eval.ts']])
    const cells = summary.benchmarks[0]!.cells
    expect(cells.map((c) => c.cellId).sort()).toEqual([...TINY_CELLS].sort())
    for (const cell of cells) {
      expect(cell).toMatchObject({
        verdict: tinyVerdict(cell.cellId),
        tasks: 3,
        repeats: 2,
        budget: 3,
        trajectories: 6,
      })
    }

    // tasks × repeats × cells lines, each a valid trajectory of this run, none twice.
    expect(trajectories).toHaveLength(3 * 2 * TINY_CELLS.length)
    expect(new Set(trajectories.map((t) => t.runId))).toEqual(new Set([runId]))
    expect(new Set(trajectories.map((t) => `${t.cellId}|${t.taskId}|${t.repeat}`)).size).toBe(trajectories.length)
    expect(new Set(trajectories.map((t) => t.taskId))).toEqual(
      new Set(['tiny/squares', 'tiny/vowels', 'tiny/palindromes']),
    )
    // Real Python ran through the packed harness: verdicts carry test diagnostics.
    const verdicts = trajectories.flatMap((t) => t.attempts.map((a) => a.verdict.diagnostics.outcome))
    expect(verdicts).toContain('passed')
    expect(verdicts).toContain('failed')
  }, 150_000)

  it('a plain `vitest run` runs the unit tests (with the metrics entry point) and no eval', async () => {
    const runs = join(project, '.seqk', 'runs')
    const before = existsSync(runs) ? readdirSync(runs).sort() : []
    const result = await vitestInProject(['run'])
    expect(result.code, result.output).toBe(0)
    expect(result.stdout).toMatch(/unit\/metrics\.spec\.ts \(2 tests\)/)
    expect(result.stdout).toMatch(/Test Files\s+1 passed \(1\)/)
    expect(result.stdout).toMatch(/Tests\s+2 passed/)
    expect(result.output).not.toMatch(/\.eval\.ts|evals\/|Seq@|no thresholds/)
    expect(existsSync(runs) ? readdirSync(runs).sort() : []).toEqual(before)
    // With our reporter added to a run of plain tests, as a config that lists it for every project
    // has it: still no run directory (the plan it starts for a live view is discarded).
    const reported = await vitestInProject(['run', '--reporter=vitest-seqk/reporter', '--reporter=default'])
    expect(reported.code, reported.output).toBe(0)
    expect(reported.stdout).toMatch(/Tests\s+2 passed/)
    expect(existsSync(runs) ? readdirSync(runs).sort() : []).toEqual(before)
  }, 150_000)

  it('fails the run on a missed threshold, names it, and still writes the artifacts', async () => {
    const runId = 'pack-fail'
    const evalFile = join(project, 'evals', 'stubborn.eval.ts')
    cpSync(join(fixture, 'negative', 'stubborn.eval.ts'), evalFile)
    let result: Finished
    try {
      result = await vitestInProject(EVALS, { SEQK_RUN_ID: runId })
    } finally {
      rmSync(evalFile, { force: true })
    }
    const failing = 'simulated:stubborn · binary'
    expect(result.code, result.output).not.toBe(0)
    expect(result.code, result.output).not.toBeNull()
    // The test failure and the table both name the missed threshold.
    expect(result.output).toMatch(/SeqkThresholdError: simulated:stubborn · binary: a check failed/)
    expect(result.output).toMatch(/Seq@3 = [\d.]+%, below the required 100\.0%/)
    // The failed row, and its reason printed under it.
    expect(result.stdout).toMatch(
      new RegExp(`^ ${failing}\\s+Seq\\s+\\d.*FAIL \\(1\\)\\n\\s+✗ Seq@3 = [\\d.]+%, below the required 100\\.0%`, 'm'),
    )

    const { summary, trajectories } = readRun(runId)
    expect(summary.benchmarks.map((b) => b.name).sort()).toEqual(['stubborn cannot make it', TINY])
    const stubborn = summary.benchmarks.find((b) => b.name === 'stubborn cannot make it')!.cells
    expect(stubborn).toHaveLength(1)
    expect(stubborn[0]).toMatchObject({ cellId: failing, verdict: 'fail' })
    expect(stubborn[0]!.thresholds.find((t) => t.metric === 'seqAt' && t.k === 3)).toMatchObject({
      pass: false,
      limit: 1,
    })
    // The passing eval next to it is unaffected, and every trajectory of both was written.
    expect(
      summary.benchmarks.find((b) => b.name === TINY)!.cells.every((c) => c.verdict === tinyVerdict(c.cellId)),
    ).toBe(true)
    expect(trajectories.filter((t) => t.benchmark === 'stubborn cannot make it')).toHaveLength(2 * 3)
    expect(trajectories).toHaveLength(2 * 3 + 3 * 2 * TINY_CELLS.length)
  }, 150_000)
})

describe('the Vitest peer range', () => {
  const range = repoPackage.peerDependencies.vitest!
  /** The range's releases as the registry has them today, oldest first. */
  let versions: string[] = []
  const semver = (v: string) => v.split('.').map(Number)
  const older = (a: string, b: string) => semver(a).reduce((d, x, i) => d || x - semver(b)[i]!, 0)

  beforeAll(async () => {
    const listed = await run('npm', ['view', `vitest@${range}`, 'version', '--json'], {
      cwd: project,
      timeoutMs: 60_000,
    })
    if (listed.code !== 0) throw new Error(`npm view vitest@"${range}" failed (exit ${listed.code}):\n${listed.output}`)
    const parsed = JSON.parse(listed.stdout) as string | string[]
    versions = (typeof parsed === 'string' ? [parsed] : parsed).filter((v) => /^\d+\.\d+\.\d+$/.test(v)).sort(older)
    if (versions.length === 0) throw new Error(`the registry has no release of vitest in ${range}`)
  }, 70_000)

  it.for(['lowest', 'newest'] as const)(
    'the %s Vitest of the range runs an eval in the project',
    { timeout: 480_000 },
    async (end) => {
      const version = end === 'lowest' ? versions[0]! : versions.at(-1)!
      const installed = await npmInProject([
        'i',
        '-D',
        '-E',
        `vitest@${version}`,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
      ])
      expect(installed.code, installed.output).toBe(0)
      expect((await vitestInProject(['--version'])).stdout).toContain(version)
      const runId = `pack-vitest-${version}`
      const result = await vitestInProject(EVALS, { SEQK_RUN_ID: runId })
      expect(result.code, `vitest ${version}:\n${result.output}`).toBe(0)
      expect(result.stdout).toMatch(new RegExp(`${TINY} — K=3, 3 tasks × 2 repeats`))
      const { summary, trajectories } = readRun(runId)
      expect(summary.benchmarks[0]!.cells).toHaveLength(TINY_CELLS.length)
      expect(summary.benchmarks[0]!.cells.map((c) => c.verdict)).toEqual(
        summary.benchmarks[0]!.cells.map((c) => tinyVerdict(c.cellId)),
      )
      expect(trajectories).toHaveLength(3 * 2 * TINY_CELLS.length)
      console.log(`pack.test: vitest ${version} (the ${end} of ${range}) ran the evals`)
    },
  )
})
