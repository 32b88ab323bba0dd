// The temporary project's own config, as a user has it: its unit tests, nothing of seqk. A plain
// `vitest run` here must not run the evals (they call models, which costs money).
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['unit/**/*.spec.ts'],
  },
})
