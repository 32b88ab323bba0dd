// Global setup of the `e2e` project: the package built for this run (built-package.ts) and the
// shared run of the bundled fixtures eval (fixtures-run.ts), side by side (Vitest runs the entries
// of `globalSetup` one after the other: 24 s on a quiet 2-core machine, against the longer one's
// 14 s together). A failure of either still cleans up after the other.
import type { TestProject } from 'vitest/node'
import buildPackage from './built-package.js'
import fixturesRun from './fixtures-run.js'

export default async function setup(project: TestProject): Promise<() => void> {
  const settled = await Promise.allSettled([buildPackage(project), fixturesRun(project)])
  const teardowns = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []))
  const teardown = () => {
    for (const down of teardowns) down()
  }
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected')
  if (failed) {
    teardown()
    throw failed.reason
  }
  return teardown
}
