// The evals' config, beside the project's own, exactly as the README's quick start writes it: no
// aliases, everything from node_modules/vitest-seqk (installed from the packed tarball). Run with
// `vitest run --config vitest.evals.config.ts`.
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['evals/**/*.eval.ts'],
    setupFiles: ['vitest-seqk/setup'],
    reporters: ['vitest-seqk/reporter', 'default'],
  },
})
