// Setup file of the `unit` test project: a unit test starts no child process (that is what makes
// `npm run test:unit` a loop of seconds). A test that needs Python, a Vitest child or a browser
// belongs to the `integration` or `e2e` project: this says so at the call, naming the fix.
import childProcess from 'node:child_process'
import { syncBuiltinESMExports } from 'node:module'

const refuse = (name: string) =>
  function refused(): never {
    throw new Error(
      `child_process.${name}: a unit test starts no child process; list this test file under the integration or e2e project in vitest.config.ts`,
    )
  }

for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
  Object.defineProperty(childProcess, name, { value: refuse(name), configurable: true, writable: true })
}
// `import { spawn } from 'node:child_process'` reads the ESM facade: bring it in line.
syncBuiltinESMExports()
