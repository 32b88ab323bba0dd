// Part of the `e2e` project's global setup (e2e.ts): the package built once for this test run, laid
// out as an installed one (package.json, dist/, schemas/) in a private directory under
// node_modules/, which child Vitest runs and `seqk` commands load natively, as a user's install is
// loaded. Through the sources instead, every child run transformed the whole package with Vite (a
// small eval: 7.1 s of wall and 7.5 s of CPU, against 3.1 s and 3.8 s built) and every `seqk` went
// through tsx (2.4 s against 1.2 s). Built fresh each run (JavaScript only, ~10 s; `npm run
// typecheck` checks the types), so it is never older than the sources; private, so `npm run build`
// or `npm pack` beside it cannot rewrite it mid-run. test/fixture-project.ts reads it with
// inject('seqkPackage').
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'
import { cleanEnv, root, runNode } from '../fixture-project.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The directory of the package built for this run (its package.json, dist/ and schemas/). */
    seqkPackage: string
  }
}

const PREFIX = '.vitest-seqk-e2e-'

/** Removes the copies of test runs that were killed before their teardown (their owner is gone). */
function removeAbandoned(): void {
  const modules = join(root, 'node_modules')
  for (const name of readdirSync(modules).filter((n) => n.startsWith(PREFIX))) {
    const dir = join(modules, name)
    let owner: number | undefined
    try {
      owner = Number(readFileSync(join(dir, 'owner.pid'), 'utf8'))
      process.kill(owner, 0)
    } catch (error) {
      // No owner file (killed while starting) or no such process: abandoned. EPERM: alive.
      if ((error as NodeJS.ErrnoException).code !== 'EPERM') rmSync(dir, { recursive: true, force: true })
    }
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  // Under node_modules/: Vite leaves modules there to Node (no transform), and the package's own
  // imports (zod, openai, …) resolve to this repository's node_modules as an installed package's do.
  removeAbandoned()
  const dir = mkdtempSync(join(root, 'node_modules', PREFIX))
  writeFileSync(join(dir, 'owner.pid'), String(process.pid))
  const built = await runNode([join(root, 'scripts/build.mjs'), '--out-dir', join(dir, 'dist'), '--js-only'], {
    cwd: root,
    env: cleanEnv(),
    timeoutMs: 240_000,
  })
  if (built.status !== 0) {
    rmSync(dir, { recursive: true, force: true })
    throw new Error(`the e2e project's build of the package failed (exit ${String(built.status)}):\n${built.out}`)
  }
  cpSync(join(root, 'package.json'), join(dir, 'package.json'))
  cpSync(join(root, 'schemas'), join(dir, 'schemas'), { recursive: true })
  project.provide('seqkPackage', dir)
  return () => rmSync(dir, { recursive: true, force: true })
}
