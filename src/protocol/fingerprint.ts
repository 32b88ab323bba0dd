import { canonicalJson, sha256 } from '../core/fingerprint.js'
import { taskMessages, type Task } from './task.js'

/**
 * Hash of the benchmark split: every task's id, prompt, tests, setup and criteria. Changing a hidden test
 * changes the protocol; changing fixture-only simulation data does not.
 */
export function benchmarkContentHash(tasks: readonly Task[]): string {
  return benchmarkHashes(tasks).benchmark
}

/**
 * The benchmark's content hash and every task's, from one serialisation per task (a cell needs
 * both). Same values as {@link benchmarkContentHash} and {@link taskContentHash}: the canonical JSON
 * of a list is its items' canonical JSON joined by commas in brackets.
 */
export function benchmarkHashes(tasks: readonly Task[]): { benchmark: string; tasks: Record<string, string> } {
  const contents = tasks.map((t) => canonicalJson(taskContent(t)))
  return {
    benchmark: sha256(`[${contents.join(',')}]`).slice(0, 16),
    tasks: Object.fromEntries(tasks.map((t, i) => [t.id, sha256(contents[i]!).slice(0, 16)])),
  }
}

function taskContent(t: Task) {
  // `criteria`, `expected`, `heldOutTests` and `expectedGrids` stay undefined when absent
  // (canonicalJson drops them), so tasks without them hash as before; a held-out list is part of
  // the benchmark split, and so are an ARC task's target grids.
  return {
    id: t.id,
    prompt: taskMessages(t),
    tests: t.tests ?? null,
    setup: t.setup ?? null,
    criteria: t.criteria,
    expected: t.expected,
    heldOutTests: t.heldOutTests,
    expectedGrids: t.expectedGrids,
  }
}

/** Hash of one task's id, prompt, tests and setup: a baseline compares only tasks whose hash matches. */
export function taskContentHash(task: Task): string {
  return sha256(canonicalJson(taskContent(task))).slice(0, 16)
}

// Hashing and protocol fingerprints live in core/; re-exported for the task hashes' readers.
export { canonicalJson, protocolDifferences, protocolFingerprint, sha256 } from '../core/fingerprint.js'
