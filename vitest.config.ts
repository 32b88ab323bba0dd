import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url))
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

export default defineConfig({
  // This repository's evals import `vitest-seqk` by its package name, exactly as a user would;
  // here the name points at the sources instead of the built package.
  resolve: {
    alias: [
      { find: /^vitest-seqk$/, replacement: src('index.ts') },
      { find: /^vitest-seqk\/metrics$/, replacement: src('metrics/index.ts') },
      { find: /^vitest-seqk\/gate$/, replacement: src('protocol/gate-index.ts') },
      { find: /^vitest-seqk\/testing$/, replacement: src('testing/index.ts') },
      { find: /^vitest-seqk\/analysis$/, replacement: src('analysis/index.ts') },
      { find: /^vitest-seqk\/artifacts$/, replacement: src('artifacts/index.ts') },
      { find: /^vitest-seqk\/report$/, replacement: src('report/index.ts') },
      { find: /^vitest-seqk\/benchmarks$/, replacement: src('benchmarks/index.ts') },
      { find: /^vitest-seqk\/setup$/, replacement: src('vitest/setup.ts') },
      { find: /^vitest-seqk\/reporter$/, replacement: src('vitest/reporter.ts') },
      { find: /^vitest-seqk\/cells$/, replacement: src('vitest/cells.ts') },
    ],
  },
  test: {
    reporters: ['./src/vitest/reporter.ts', 'default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'fixtures/**/*.test.ts', 'test/**/*.test.ts'],
          benchmark: { include: ['src/**/*.bench.ts', 'test/**/*.bench.ts'] },
          // The built package (dist/, imported only by test/providers.bench.ts) loads natively, as
          // Vitest loads any installed dependency: benches measure what users run.
          server: { deps: { external: [new RegExp(`^${escapeRegExp(fileURLToPath(new URL('./dist/', import.meta.url)))}`)] } },
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'evals',
          include: ['evals/**/*.eval.ts'],
          setupFiles: ['./src/vitest/setup.ts'],
        },
      },
    ],
  },
})
