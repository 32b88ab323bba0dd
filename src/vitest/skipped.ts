import type { TestModule } from 'vitest/node'

/**
 * One line per test skipped with a reason (`ctx.skip(reason)`: benchmark data that is absent, a
 * model that cannot run here), as Vitest's default reporter shows them only with --reporter=verbose.
 * Cells skipped for the same reason are said in one line.
 */
export function skipLines(testModules: ReadonlyArray<TestModule>): string[] {
  const byReason = new Map<string, string[]>()
  for (const module of testModules) {
    for (const t of module.children.allTests()) {
      const result = t.result()
      if (result.state !== 'skipped' || !result.note) continue
      byReason.set(result.note, [...(byReason.get(result.note) ?? []), t.fullName.replace(/ > /g, ' › ')])
    }
  }
  return [...byReason].map(
    ([reason, names]) =>
      `seqk: skipped ${names.length === 1 ? `"${names[0]}"` : `${names.length} tests (${names.map((n) => `"${n}"`).join(', ')})`}: ${reason}`,
  )
}
