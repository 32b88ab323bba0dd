// Shared by this project's tests and benches (not shipped: the build leaves out test-helpers.ts).
import type { ChatModel } from '../models/chat-model.js'
import { binary } from '../feedback/binary.js'
import type { Verifier } from '../verifiers/verifier.js'
import type { CellSpec } from './cell.js'
import { fullHistory } from './history.js'
import { defaultPromptBuilder } from './prompt-builder.js'
import type { Task } from './task.js'

/** A verifier that fails every answer, so every trajectory uses its whole budget. */
export const neverPasses: Verifier = {
  name: 'never',
  version: '1',
  settings: {},
  verify() {
    return { pass: false, diagnostics: { outcome: 'failed', summary: 'failed' } }
  },
}

/** Passes an answer that says CORRECT: the simulated actors' `correct` answers in this project's tests. */
export const saysCorrect: Verifier = {
  name: 'says-correct',
  version: '1',
  settings: {},
  verify(_task, answer) {
    const pass = answer.includes('CORRECT')
    return { pass, diagnostics: { outcome: pass ? 'passed' : 'failed', summary: pass ? 'ok' : 'expected CORRECT' } }
  },
}

/** A sequential binary-feedback cell over `tasks` with `actor`; override any field. */
export function cellSpec(tasks: readonly Task[], actor: ChatModel, overrides: Partial<CellSpec> = {}): CellSpec {
  return {
    runId: 'test',
    benchmark: 'test',
    cellId: `${actor.id} · binary`,
    tasks,
    actor,
    verifier: neverPasses,
    mode: { name: 'binary', feedback: binary() },
    history: fullHistory,
    promptBuilder: defaultPromptBuilder,
    budget: 3,
    repeats: 1,
    discloseBudget: false,
    concurrency: 1,
    thresholds: {},
    errors: 'left-out',
    ...overrides,
  }
}
