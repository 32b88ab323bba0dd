/**
 * `disclosure.json` in a run directory: written at the end of every run (and by `seqk merge`),
 * read and printed by `seqk disclose`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DisclosureCardSchema, type DisclosureCard } from '../core/disclosure.js'
import type { RunSummary, Trajectory } from '../core/schemas.js'
import { describeZodError } from '../core/zod-errors.js'
import { CELLS_FILE, readCells, type CellStartRecord } from '../artifacts/cells-file.js'
import { collectHarness, type HarnessFacts } from './environment.js'
import { disclosureCard } from './disclosure.js'
import type { Emitter } from './emitters.js'

export const DISCLOSURE_FILE = 'disclosure.json'

/** The cells' start records of a run directory; none when it has no cells.jsonl. */
export function cellStarts(runDir: string): CellStartRecord[] {
  const path = join(runDir, CELLS_FILE)
  return existsSync(path) ? readCells(path).cells.map((c) => c.start) : []
}

/**
 * Builds a run's card from its summary, cells.jsonl and trajectories, with the harness facts of
 * this machine now, and checks it against its schema (a card that does not validate is a bug, and
 * is not written).
 *
 * @example
 * const card = await runDisclosure({ summary, runDir, root: process.cwd(), trajectories, by: 'reporter' })
 */
export async function runDisclosure(input: {
  summary: RunSummary
  runDir: string
  root: string
  trajectories: readonly Trajectory[]
  by: HarnessFacts['collected']['by']
  note?: string
}): Promise<DisclosureCard> {
  const cells = input.summary.benchmarks.flatMap((b) => b.cells)
  const pythonUsed = cells.some((c) => c.protocol.verifier.name === 'python-tests')
  const sandboxed = cells.some((c) => (c.sandboxes?.bwrap ?? 0) > 0)
  const harness = await collectHarness({
    root: input.root,
    pythonUsed,
    sandboxed,
    by: input.by,
    ...(input.note ? { note: input.note } : {}),
  })
  const card = disclosureCard({
    summary: input.summary,
    starts: cellStarts(input.runDir),
    trajectories: input.trajectories,
    harness,
  })
  const parsed = DisclosureCardSchema.safeParse(card)
  if (!parsed.success)
    throw new Error(
      `the disclosure card of run ${input.summary.runId} does not match its schema (${describeZodError(parsed.error)}); this is a bug in vitest-seqk`,
    )
  return parsed.data
}

/** Reads and validates a `disclosure.json` (errors name the file and the field). */
export function readDisclosure(path: string): DisclosureCard {
  let json: unknown
  try {
    json = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new Error(`${path}: not valid JSON (${(error as Error).message})`)
  }
  const parsed = DisclosureCardSchema.safeParse(json)
  if (!parsed.success) throw new Error(`${path}: not a seqk disclosure card: ${describeZodError(parsed.error)}`)
  return parsed.data
}

/**
 * The emitter that writes `disclosure.json`; `by` says what collected the harness facts (the
 * reporter at the run's end, or `seqk merge` on the merging machine).
 */
export function disclosureEmitter(by: 'reporter' | 'seqk merge' = 'reporter'): Emitter {
  return {
    name: DISCLOSURE_FILE,
    async emit({ summary, runDir, root, trajectories }) {
      const note =
        by === 'seqk merge'
          ? "the shards ran on other machines: the harness facts are the merging machine's"
          : undefined
      const card = await runDisclosure({
        summary,
        runDir,
        root,
        trajectories: await trajectories(),
        by,
        ...(note ? { note } : {}),
      })
      writeFileSync(join(runDir, DISCLOSURE_FILE), `${JSON.stringify(card, null, 2)}\n`)
      return DISCLOSURE_FILE
    },
  }
}
