// The temporary project's config, written as a user of the published package would write it:
// no aliases, everything comes from node_modules/vitest-seqk (installed from the packed tarball).
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    reporters: ['vitest-seqk/reporter', 'default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['unit/**/*.spec.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'evals',
          include: ['evals/**/*.eval.ts'],
          setupFiles: ['vitest-seqk/setup'],
        },
      },
    ],
  },
})
