// A throwaway Vitest project for end-to-end tests: this repository's node_modules, ESM, and a
// vitest.config.ts that resolves `vitest-seqk` to the package under test, runs `*.eval.ts` with the
// seqk reporter and setup file, so a test writes eval files and runs the real CLI in it.
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inject } from 'vitest'

export const root = new URL('..', import.meta.url).pathname

/** The files child runs load vitest-seqk from, and the `seqk` command line. */
export interface PackageUnderTest {
  index: string
  reporter: string
  setup: string
  /** The `vitest-seqk/testing` entry (the test server), for eval files that start one. */
  testing: string
  /** `node` arguments that run the `seqk` command. */
  seqk: readonly string[]
}

/**
 * The package child runs use: in the e2e project, the copy its global setup built for this run
 * (test/setup/built-package.ts), loaded natively as an installed package is; elsewhere (a global
 * setup, another project) the sources, through Vite and tsx.
 */
function packageUnderTest(): PackageUnderTest {
  let dir: string | undefined
  try {
    dir = inject('seqkPackage')
  } catch {
    // A global setup runs outside any test file: there is no provided context to read.
  }
  if (dir === undefined)
    return {
      index: join(root, 'src/index.ts'),
      reporter: join(root, 'src/vitest/reporter.ts'),
      setup: join(root, 'src/vitest/setup.ts'),
      testing: join(root, 'src/testing/index.ts'),
      seqk: [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'src/cli/seqk.ts')],
    }
  return {
    index: join(dir, 'dist/index.js'),
    reporter: join(dir, 'dist/vitest/reporter.js'),
    setup: join(dir, 'dist/vitest/setup.js'),
    testing: join(dir, 'dist/testing/index.js'),
    seqk: [join(dir, 'dist/cli/seqk.js')],
  }
}
export const PACKAGE = packageUnderTest()

/** A config's `resolve` entry that resolves the bare `vitest-seqk` to the package under test. */
export const SEQK_ALIAS = `resolve: { alias: [{ find: /^vitest-seqk$/, replacement: ${JSON.stringify(PACKAGE.index)} }] }`

/**
 * Creates the project under the system's temporary directory; the caller removes it. `reporters`
 * are added after the seqk reporter (e.g. `'verbose'`, which prints each test's annotations).
 */
export function fixtureProject(prefix: string, options: { reporters?: readonly string[] } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n')
  writeFileSync(
    join(dir, 'vitest.config.ts'),
    `import { defineConfig } from 'vitest/config'
export default defineConfig({
  ${SEQK_ALIAS},
  test: { include: ['*.eval.ts'], reporters: ${JSON.stringify([PACKAGE.reporter, ...(options.reporters ?? [])])}, setupFiles: [${JSON.stringify(PACKAGE.setup)}] },
})
`,
  )
  return dir
}

/**
 * An environment for a child Vitest or seqk run that this machine's settings cannot steer: no
 * VITEST*, SEQK_*, GITHUB_* or CI variable, no API key, NODE_OPTIONS or FORCE_COLOR, and NO_COLOR
 * set; then `set` on top (a value of undefined removes a variable).
 */
export function cleanEnv(set: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1' }
  for (const key of Object.keys(env)) {
    if (
      // A batch engine's index (a CI running in a Kubernetes Indexed Job) would shard every child run.
      /^(VITEST|SEQK_|GITHUB_|JOB_COMPLETION_INDEX$|CLOUD_RUN_TASK_|AWS_BATCH_JOB_ARRAY_)/.test(key) ||
      ['CI', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'NODE_OPTIONS', 'FORCE_COLOR'].includes(key)
    )
      delete env[key]
  }
  for (const [key, value] of Object.entries(set)) {
    if (value === undefined) delete env[key]
    else env[key] = value
  }
  return env
}

/** The Vitest command line, and seqk's (of the package under test). */
export const VITEST = join(root, 'node_modules/vitest/vitest.mjs')
export const SEQK = PACKAGE.seqk

/** Eval-file source of a verifier that passes an answer saying CORRECT (the fixtures' simulated and served answers). */
export const SAYS_CORRECT_SOURCE =
  "const verifier: Verifier = { name: 'says-correct', version: '1', settings: {}, async verify(_t, answer) { const pass = answer.includes('CORRECT'); return { pass, diagnostics: { outcome: pass ? 'passed' : 'failed', summary: pass ? 'ok' : 'say CORRECT' } } } }"

/**
 * Terminal output with the reporter's word-wrapping undone: a message printed from column 0 and
 * wrapped at 120 columns continues on lines indented by two spaces (tables and notes, which start
 * indented, are left as they are).
 */
export function unwrapped(text: string): string {
  return text.replace(/\n {2}(?=\S)/g, ' ')
}

/**
 * Runs `node args` in `cwd` to its end without blocking this process (never spawnSync: a test
 * server in this process must keep answering): its stdout, its stderr and both in one string as
 * they came. Its whole process group is killed with SIGKILL after `timeoutMs`, or as soon as
 * `killWhen()` holds.
 */
export async function runNode(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string | undefined>; timeoutMs?: number; killWhen?: () => boolean },
): Promise<{ status: number | null; out: string; stdout: string; stderr: string }> {
  const { spawn } = await import('node:child_process')
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let out = ''
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => {
    out += d
    stdout += d
  })
  child.stderr.on('data', (d) => {
    out += d
    stderr += d
  })
  const kill = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
  const timer = setTimeout(kill, options.timeoutMs ?? 90_000)
  const watch = options.killWhen ? setInterval(() => options.killWhen!() && kill(), 5) : undefined
  const status = await new Promise<number | null>((r) => child.on('close', r))
  clearTimeout(timer)
  clearInterval(watch)
  return { status, out, stdout, stderr }
}

/**
 * At most `limit` of the jobs given to the returned function run at once; the others wait their
 * turn. For a file that starts many child runs side by side without starting them all together.
 */
export function limiter(limit: number): <T>(job: () => Promise<T>) => Promise<T> {
  let active = 0
  const waiting: (() => void)[] = []
  return async (job) => {
    // A slot is free, or one that frees is handed over to the first waiter.
    if (active < limit) active++
    else await new Promise<void>((resolve) => waiting.push(resolve))
    try {
      return await job()
    } finally {
      const next = waiting.shift()
      if (next) next()
      else active--
    }
  }
}
