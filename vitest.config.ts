import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url))
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Tests under src/ and fixtures/ that start child processes: real Python (the sandbox, the pool, reference solutions), git, xmllint. */
const INTEGRATION_SOURCES = [
  'src/verifiers/python-tests/{hostile-judge,hostile,pool,python-tests,sandbox,task-fields}.test.ts',
  'src/benchmarks/simulation-from-reference.test.ts',
  // Spawns a child that exits, for a pid that is gone.
  'src/artifacts/run-lock.test.ts',
  // Run xmllint, or collect the environment (git, python --version) for the disclosure card.
  'src/report/{junit,disclosure,emitters}.test.ts',
  // Drives the reporter in process; its disclosure emitter asks git.
  'src/vitest/reporter.test.ts',
  // Smoke-tests the sandbox (bwrap, python3) at declaration.
  'fixtures/code-tasks.test.ts',
]
/** Tests that run Vitest or the CLI as child processes, npm pack, or Chromium. */
const E2E = [
  'test/*.e2e.test.ts',
  'test/{analyze-cli,crash,live-browser,pack,report-browser,view-cli,workflows}.test.ts',
]
/** The slow e2e files, run in the long lane only (`npm run test:long`): npm pack, the browsers. */
const LONG_E2E = ['test/{pack,report-browser,live-browser}.test.ts']
/** Corpora sampled in `npm test` and run whole in the long lane (test/sample.ts reads SEQK_TEST_LANE). */
const LONG_CORPORA = ['test/parity.test.ts']
/**
 * Integration files run in the long lane only: the strengthened suites' honesty and catch rate on
 * their fixed sample (4–5 minutes at load 17: the search and the broken copies run real Python).
 */
const LONG_INTEGRATION = ['test/strengthen-honesty.test.ts']

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
    // By cost: `unit` starts no child process (npm run test:unit, the developer's loop), `integration`
    // runs real Python, the test server and the SDKs, `e2e` runs Vitest children and the CLI.
    // `npm test` runs those three, the long corpora sampled (the fast lane); npm run test:long runs
    // `studies` (the Monte-Carlo studies) and `long` (npm pack, the browsers, the long corpora whole).
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'fixtures/**/*.test.ts'],
          exclude: [...INTEGRATION_SOURCES, '**/node_modules/**'],
          setupFiles: ['./test/setup/no-child-process.ts'],
          // One module graph per worker instead of one per file: import dominated the loop (a paired
          // run: 0.42× the CPU, 0.45× the wall). Unit tests restore what they change (env, timers).
          isolate: false,
          benchmark: { include: ['src/**/*.bench.ts'] },
          testTimeout: 30_000,
          // A beforeAll that renders a report (vega) took over the default 10 s on a loaded 2-core machine.
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts', ...INTEGRATION_SOURCES],
          exclude: [...E2E, ...LONG_INTEGRATION, '**/node_modules/**'],
          // Benches under test/ start Python, servers or the built package's children.
          benchmark: { include: ['test/**/*.bench.ts'] },
          // The built package (dist/, imported only by test/providers.bench.ts) loads natively, as
          // Vitest loads any installed dependency: benches measure what users run.
          server: {
            deps: { external: [new RegExp(`^${escapeRegExp(fileURLToPath(new URL('./dist/', import.meta.url)))}`)] },
          },
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: E2E,
          exclude: [...LONG_E2E, '**/node_modules/**'],
          // The package built once (child runs load it natively, as users do) and one shared run of the bundled fixtures eval.
          globalSetup: ['./test/setup/e2e.ts'],
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          // The seeded Monte-Carlo studies of the statistics' promises (studies/, not in the package):
          // minutes of CPU, so in the long lane (npm run studies, npm run test:long), not the unit loop.
          name: 'studies',
          include: ['studies/**/*.test.ts'],
          setupFiles: ['./test/setup/no-child-process.ts'],
          isolate: false,
          testTimeout: 240_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'long',
          include: [...LONG_E2E, ...LONG_CORPORA, ...LONG_INTEGRATION],
          env: { SEQK_TEST_LANE: 'long' },
          globalSetup: ['./test/setup/e2e.ts'],
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
