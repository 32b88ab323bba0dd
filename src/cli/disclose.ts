/**
 * `seqk disclose <run>`: prints a run's disclosure card (its disclosure.json), or `--json` the
 * card itself. A run written before cards existed gets one built from its files, with the harness
 * facts unknown: they were not recorded when it ran, and today's machine is not that one.
 */
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { resolveSummaryPath } from '../analysis/load-runs.js'
import { readSummary } from '../artifacts/summary-file.js'
import { TRAJECTORIES_FILE } from '../artifacts/run-dir.js'
import { readTrajectories, summaryView } from '../artifacts/trajectories-file.js'
import type { DisclosureCard } from '../core/disclosure.js'
import { cellStarts, DISCLOSURE_FILE, readDisclosure } from '../report/disclosure-file.js'
import { disclosureCard, renderDisclosure } from '../report/disclosure.js'
import type { CommandSpec, FlagValues } from './args.js'
import { UsageError } from './args.js'
import { InputError } from './input-error.js'
import type { CliIo } from './run.js'
import { fit } from './fit.js'

export const discloseSpec: CommandSpec = {
  name: 'disclose',
  usage: 'seqk disclose <run> [--json]',
  summary:
    "Print a run's disclosure card: the benchmark's identity, the harness and environment, every actor's inference settings, the cost (with the estimate made before the run and its error) and the failures, with a score of how complete it is.",
  details: [
    'A run is a run directory (.seqk/runs/<id>), its summary.json, or a runs directory (its newest',
    "run). The card is the run's disclosure.json, written when the run ended; a run without one gets",
    'a card built from its files in which the harness facts are unknown (never taken from this',
    'machine today). The JSON Schema is schemas/disclosure.schema.json.',
    '',
    'Examples:  npx seqk disclose .seqk/runs/latest',
    '           npx seqk disclose .seqk/runs/20261201-101500-9f2c4a --json > card.json',
  ].join('\n'),
  flags: [{ name: 'json', kind: 'boolean', description: 'print the card as JSON instead of text' }],
}

/** The card of the run in `runDir`: its disclosure.json, else one built from its files without harness facts. */
export function cardOf(runDir: string): { card: DisclosureCard; built: boolean } {
  const file = join(runDir, DISCLOSURE_FILE)
  if (existsSync(file)) return { card: readDisclosure(file), built: false }
  const summary = readSummary(join(runDir, 'summary.json'))
  const path = join(runDir, TRAJECTORIES_FILE)
  const trajectories = existsSync(path) ? readTrajectories(path, { view: summaryView }).trajectories : []
  const unknown = {
    vitestSeqk: null,
    vitest: null,
    node: null,
    python: null,
    sdks: {},
    os: null,
    git: { commit: null, clean: null, branch: null },
  }
  const pythonUsed = summary.benchmarks.some((b) => b.cells.some((c) => c.protocol.verifier.name === 'python-tests'))
  const harness = {
    ...unknown,
    pythonUsed,
    collected: {
      at: new Date().toISOString(),
      by: 'seqk disclose' as const,
      note: `the run wrote no ${DISCLOSURE_FILE}: its harness facts were not recorded when it ran`,
    },
  }
  return { card: disclosureCard({ summary, starts: cellStarts(runDir), trajectories, harness }), built: true }
}

/** Runs `seqk disclose`; returns its exit code. */
export function runDisclose(paths: readonly string[], flags: FlagValues, io: CliIo): number {
  if (paths.length !== 1)
    throw new UsageError(
      `seqk disclose: give exactly one run (got ${paths.length}), e.g. seqk disclose .seqk/runs/latest`,
      'disclose',
    )
  const runDir = dirname(resolveSummaryPath(resolve(io.cwd ?? process.cwd(), paths[0]!)))
  let card: DisclosureCard
  let built: boolean
  try {
    ;({ card, built } = cardOf(runDir))
  } catch (error) {
    throw new InputError(`cannot read the card of ${runDir}: ${(error as Error).message}`, { cause: error })
  }
  if (flags.json === true) io.stdout(`${JSON.stringify(card, null, 2)}\n`)
  else io.stdout(`${fit(renderDisclosure(card), io)}\n`)
  if (built)
    io.stderr(
      `${fit(`seqk disclose: ${runDir} has no ${DISCLOSURE_FILE} (written by runs of vitest-seqk since it had cards): built from its files, harness facts unknown`, io)}\n`,
    )
  return 0
}
