/**
 * The test lanes' one switch: which share of a long corpus a test file runs.
 *
 * `npm test` (the fast lane) runs a fixed sample of each long corpus (the parity corpus, the honest
 * shapes); `npm run test:long` runs the `long` project, which sets `SEQK_TEST_LANE=long`, and every
 * item runs. A file run alone (`npx vitest run --project integration test/parity.test.ts`) is in
 * the fast lane unless the variable says otherwise.
 *
 * The sample is drawn from a seed: `SEQK_TEST_SEED` when set, else the commit (`git rev-parse
 * HEAD`, so it rotates from commit to commit and is the same on every machine for one commit),
 * else `no-git`. Each item is ranked by a hash of (seed, corpus, the item's key) and the lowest
 * ranks are kept, so adding an item to a corpus never changes which other items are chosen. Every
 * sample prints one line with its seed: `SEQK_TEST_SEED=<seed>` runs that very sample again.
 *
 *   SEQK_TEST_LANE=long npx vitest run --project integration test/parity.test.ts   # everything
 *   SEQK_TEST_SEED=4f1c2a9e0b7d npx vitest run --project integration test/parity.test.ts
 */
import { execFileSync } from 'node:child_process'
import { seedFrom } from '../src/metrics/random.js'

/** The lanes: `fast` samples the long corpora, `long` runs them whole. */
export const LANES = ['fast', 'long'] as const
export type Lane = (typeof LANES)[number]

/** The lane `SEQK_TEST_LANE` names (unset or empty: fast); a clear error for any other value. */
export function laneFrom(value: string | undefined): Lane {
  if (value === undefined || value === '') return 'fast'
  if ((LANES as readonly string[]).includes(value)) return value as Lane
  throw new Error(`SEQK_TEST_LANE=${value}: use fast (a sample of each long corpus, the default) or long (all of it)`)
}

/** This process's lane, from `SEQK_TEST_LANE`. */
export const LANE: Lane = laneFrom(process.env.SEQK_TEST_LANE)

let commit: string | undefined

/** The sample's seed: `SEQK_TEST_SEED`, else the first 12 characters of the commit, else `no-git`. */
export function sampleSeed(): string {
  const given = process.env.SEQK_TEST_SEED?.trim()
  if (given) return given
  if (commit === undefined) {
    try {
      const cwd = new URL('..', import.meta.url)
      const head = execFileSync('git', ['rev-parse', 'HEAD'], {
        cwd,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      })
      commit = head.trim().slice(0, 12)
    } catch {
      // Not a git checkout (an unpacked tarball): a fixed sample.
    }
    commit ||= 'no-git'
  }
  return commit
}

/**
 * The item's rank in `corpus`'s sample: lower is chosen first. The same key keeps its rank whatever
 * else the corpus holds.
 */
export function sampleRank(corpus: string, key: string): number {
  return seedFrom(sampleSeed(), corpus, key)
}

/**
 * `size` items of `items` in the fast lane (those of lowest {@link sampleRank}, in their original
 * order), every item in the long lane; prints which, with the seed that reproduces it.
 *
 * @example
 * const tasks = sample('parity tasks', entries, 40, (e) => e.task.id)
 */
export function sample<T>(
  corpus: string,
  items: readonly T[],
  size: number,
  key: (item: T) => string,
  lane: Lane = LANE,
): T[] {
  if (lane === 'long' || size >= items.length) {
    console.log(`${corpus}: all ${items.length} (lane ${lane})`)
    return [...items]
  }
  const ranked = items.map((item, index) => ({ index, rank: sampleRank(corpus, key(item)) }))
  const kept = new Set(
    ranked
      .sort((a, b) => a.rank - b.rank || a.index - b.index)
      .slice(0, size)
      .map((r) => r.index),
  )
  console.log(
    `${corpus}: ${kept.size} of ${items.length}, sampled with seed ${sampleSeed()} ` +
      `(SEQK_TEST_SEED=${sampleSeed()} draws it again; SEQK_TEST_LANE=long runs all)`,
  )
  return items.filter((_, index) => kept.has(index))
}
