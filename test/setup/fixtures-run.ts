// Part of the `e2e` project's global setup (e2e.ts): one run of the bundled fixtures eval (offline,
// simulated actors, real Python), shared by every test that reads a real run
// (`inject('fixturesRun')`), so the eval runs once per test run instead of once per file. Tests
// copy the directory before they write into it (copyFixturesRun).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { cleanEnv, root, runNode, VITEST } from '../fixture-project.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared run of evals/fixtures-code.eval.ts: its directory, exit status and terminal output. */
    fixturesRun: { dir: string; status: number | null; out: string }
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const tmp = mkdtempSync(join(tmpdir(), 'seqk-fixtures-run-'))
  const dir = join(tmp, 'run')
  const env = cleanEnv({ CI: 'true', SEQK_RUN_DIR: dir, SEQK_HISTORY_FILE: join(tmp, 'history.jsonl') })
  const { status, out } = await runNode([VITEST, 'run', '--project', 'evals', 'evals/fixtures-code.eval.ts'], {
    cwd: root,
    env,
    timeoutMs: 240_000,
  })
  project.provide('fixturesRun', { dir, status, out })
  return () => rmSync(tmp, { recursive: true, force: true })
}
