// Where this project's tests and benches find the real benchmark data: ../shared/benchmarks/
// next to the repository (never copied into it). Not shipped: the build leaves out test-helpers.ts.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const sharedBenchmarks = new URL('../../../shared/benchmarks/', import.meta.url)

/** A file under ../shared/benchmarks/. */
export function sharedFile(path: string): URL {
  return new URL(path, sharedBenchmarks)
}

/** The two CodeEval-Pro files. */
export const codeEvalProFiles = {
  'humaneval-pro': sharedFile('humaneval-pro/humaneval_pro.json'),
  'mbpp-pro': sharedFile('mbpp-pro/mbpp_pro.json'),
} as const

/** Why a test must skip, or undefined when every file is there. */
export function missingData(...files: URL[]): string | undefined {
  const missing = files.filter((f) => !existsSync(f))
  return missing.length === 0
    ? undefined
    : `no benchmark data at ${missing.map((f) => fileURLToPath(f)).join(', ')} (the files live next to the repository, never in it)`
}
