// Checks before the first paid call, in real Vitest runs: a missing Python interpreter is found
// before any cell calls its (priced) model and said once, on one line; two seqEval blocks of one
// name in one file are an error; `seqk estimate <file>` finds the project's eval config as the
// README sets it up (vitest.evals.config.ts), and says `--config` when nothing runs the file.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanEnv, fixtureProject, PACKAGE, runNode, SEQK, SEQK_ALIAS, VITEST } from './fixture-project.js'

/** Output with every wrapped line joined back: tables and notes wrap at 120 columns with their own indents. */
const flat = (text: string) => text.replace(/\s*\n\s*/g, ' ')

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})
const project = (prefix: string) => {
  const dir = fixtureProject(prefix)
  dirs.push(dir)
  return dir
}

const PRICED_EVAL = (name: string, extra = '') => `import { writeFileSync } from 'node:fs'
import { afterAll } from 'vitest'
import { actors, feedback, seqEval, verifiers } from 'vitest-seqk'
import { startTestServer } from ${JSON.stringify(PACKAGE.testing)}
const server = await startTestServer({ responder: () => 'def add(a, b):\\n    return a + b' })
afterAll(async () => {
  writeFileSync('requests.txt', String(server.requests.length))
  await server.close()
})
const actor = actors.openaiCompatible({ model: 'paid', id: 'paid', baseURL: server.openaiBaseURL, prices: { 'openai-compatible:paid': { input: 2, output: 8 } } })
seqEval(${JSON.stringify(name)}, {
  tasks: [{ id: 'add', prompt: 'Write add(a, b).', tests: 'assert add(1, 2) == 3' }],
  actors: [actor],
  verifier: verifiers.pythonTests(),
  budget: 2,
  independent: true,
  modes: { binary: { feedback: feedback.binary() }, verifier: { feedback: feedback.verifier() } },
})
${extra}`

describe('checks before the first paid call', () => {
  it('no Python: found before any model call, said once on one line; the other cells are skipped naming the first', async () => {
    const dir = project('seqk-preflight-python-')
    writeFileSync(join(dir, 'python.eval.ts'), PRICED_EVAL('needs python'))
    const env = cleanEnv({ SEQK_RUN_DIR: join(dir, 'run'), SEQK_PYTHON: join(dir, 'no-such-python3') })
    const r = await runNode([VITEST, 'run'], { cwd: dir, env, timeoutMs: 120_000 })
    expect(r.status, r.out).toBe(1)
    // Before: each of the three cells paid for its first answers, then failed on Python, each printing it.
    expect(readFileSync(join(dir, 'requests.txt'), 'utf8')).toBe('0')
    const out = flat(r.out)
    expect(out).toMatch(
      /pre-flight, before any model call: vitest-seqk python-tests: no usable Python 3\.8\+ interpreter/,
    )
    // The full error (what was tried, the fix) once, on one line; the other cells name the cell that said it.
    expect(out.split('tried SEQK_PYTHON').length - 1).toBe(1)
    expect(r.out).not.toMatch(/^\s*- .*no-such-python3: not found/m)
    expect(out).toMatch(/did not run: the pre-flight of python-tests failed in needs python › paid · binary/)
    expect(readFileSync(join(dir, 'run', 'summary.json'), 'utf8')).toMatch(/pre-flight, before any model call/)
  }, 150_000)

  it('two seqEval blocks of one name in one file are an error, not one merged benchmark', async () => {
    const dir = project('seqk-preflight-names-')
    const one = `seqEval('twice', { tasks: [{ id: 't', prompt: 'hi' }], actors: [actors.simulated({ profile: 'reviser' })], verifier, budget: 2, modes: { binary: { feedback: feedback.binary() } } })`
    writeFileSync(
      join(dir, 'twice.eval.ts'),
      `import { actors, feedback, seqEval, type Verifier } from 'vitest-seqk'
const verifier: Verifier = { name: 'v', version: '1', settings: {}, verify: () => ({ pass: true, diagnostics: { outcome: 'passed', summary: '' } }) }
${one}
${one}
`,
    )
    const r = await runNode([VITEST, 'run'], {
      cwd: dir,
      env: cleanEnv({ SEQK_RUN_DIR: join(dir, 'run') }),
      timeoutMs: 120_000,
    })
    expect(r.status).toBe(1)
    expect(flat(r.out)).toMatch(
      /twice\.eval\.ts failed to load: seqEval\("twice"\): a second seqEval with this name in this file; a benchmark is its name, so the two would merge into one in every output: give each its own name/,
    )
  }, 150_000)

  it("seqk estimate finds the README's vitest.evals.config.ts, and without a config that runs the file says --config", async () => {
    const dir = project('seqk-preflight-estimate-')
    // The README's setup: the default config runs unit tests; the evals have their own.
    writeFileSync(
      join(dir, 'vitest.config.ts'),
      `import { defineConfig } from 'vitest/config'
export default defineConfig({ test: { include: ['src/**/*.test.ts'] } })
`,
    )
    writeFileSync(
      join(dir, 'vitest.evals.config.ts'),
      `import { defineConfig } from 'vitest/config'
export default defineConfig({
  ${SEQK_ALIAS},
  test: { include: ['evals/**/*.eval.ts'], reporters: [${JSON.stringify(PACKAGE.reporter)}], setupFiles: [${JSON.stringify(PACKAGE.setup)}] },
})
`,
    )
    const { mkdirSync } = await import('node:fs')
    mkdirSync(join(dir, 'evals'))
    writeFileSync(join(dir, 'evals', 'add.eval.ts'), PRICED_EVAL('estimated'))
    const env = cleanEnv({})
    const found = await runNode([...SEQK, 'estimate', 'evals/add.eval.ts'], { cwd: dir, env, timeoutMs: 200_000 })
    expect(found.status, found.out).toBe(0)
    expect(found.out).toMatch(/estimated › paid · binary/)
    expect(found.out).toMatch(/total over 3 cells/)
    // A file no config runs: the error names the configs tried and the way to name one.
    writeFileSync(join(dir, 'stray.eval.ts'), PRICED_EVAL('stray'))
    const stray = await runNode([...SEQK, 'estimate', 'stray.eval.ts'], { cwd: dir, env, timeoutMs: 200_000 })
    expect(stray.status).not.toBe(0)
    expect(flat(stray.out)).toMatch(
      /with its default config, then vitest\.evals\.config\.ts\).*seqk estimate .*stray\.eval\.ts -- --config <your vitest config>/s,
    )
  }, 300_000)
})
