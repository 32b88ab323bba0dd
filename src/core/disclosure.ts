/**
 * The disclosure card of a run (`disclosure.json` in the run directory): what another team needs
 * to reproduce or compare the run's numbers, in the five parts reproducibility audits ask for:
 * the benchmark's identity, the harness and environment, the inference settings, the cost and the
 * failures. A value that is not known is null and named in `completeness.missing` with what would
 * fill it; it is never left out or shown as zero.
 */
import { z } from 'zod'
import { CallUsageSchema } from './contract.js'

const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()])
const Settings = z.record(z.string(), Scalar)
const MaybeNumber = z.number().nullable()

/**
 * Where a benchmark's tasks came from, as their `metadata` says: the distinct `metadata.source`,
 * `metadata.revision` and `metadata.subset` values of the declared tasks (the loaders set
 * `source`; an eval file may add the others). Recorded when each cell starts.
 */
export const BenchmarkProvenanceSchema = z.object({
  sources: z.array(z.string()),
  revisions: z.array(z.string()),
  subsets: z.array(z.string()),
})
export type BenchmarkProvenance = z.infer<typeof BenchmarkProvenanceSchema>

/** The disclosure card's schema version, as `schema` in disclosure.json. */
export const DISCLOSURE_SCHEMA = 'seqk.disclosure/1'

const CellRef = { benchmark: z.string(), cellId: z.string() }

/** A run's disclosure card (disclosure.json): benchmarks, harness, inference, cost, failures and completeness. */
export const DisclosureCardSchema = z.object({
  schema: z.literal(DISCLOSURE_SCHEMA),
  runId: z.string(),
  createdAt: z.string(),
  /** One per seqEval block. */
  benchmarks: z.array(
    z.object({
      name: z.string(),
      /** The eval file, relative to the project root. */
      file: z.string(),
      tasks: z.number().int().nonnegative(),
      /** Hash of every task's id, prompt, tests and setup (the protocol's benchmark split). */
      contentHash: z.string(),
      source: z.string().nullable(),
      revision: z.string().nullable(),
      subset: z.string().nullable(),
    }),
  ),
  harness: z.object({
    vitestSeqk: z.string().nullable(),
    vitest: z.string().nullable(),
    node: z.string().nullable(),
    /** The Python the code verifier runs, resolved as it resolves it; null when unknown. */
    python: z.object({ version: z.string(), path: z.string() }).nullable(),
    /** Whether a verifier of the run runs Python (python-tests): the Python version is then required. */
    pythonUsed: z.boolean(),
    /** Installed versions of the provider SDKs (`openai`, `@anthropic-ai/sdk`); null when not installed. */
    sdks: z.record(z.string(), z.string().nullable()),
    verifiers: z.array(z.object({ name: z.string(), version: z.string(), settings: Settings })),
    /** Attempts judged under each sandbox mode (code verifiers); null when no verdict names one. */
    sandbox: z.object({ bwrap: z.number().int().nonnegative(), none: z.number().int().nonnegative() }).nullable(),
    os: z.object({ platform: z.string(), release: z.string(), version: z.string(), arch: z.string() }).nullable(),
    git: z.object({ commit: z.string().nullable(), clean: z.boolean().nullable(), branch: z.string().nullable() }),
    /** When and by what these facts were collected (a merge collects them on the merging machine). */
    collected: z.object({
      at: z.string(),
      by: z.enum(['reporter', 'seqk merge', 'seqk disclose']),
      note: z.string().optional(),
    }),
  }),
  /** One per actor. */
  inference: z.array(
    z.object({
      actorId: z.string(),
      provider: z.string(),
      model: z.string(),
      /** The model identity that served the calls: as the provider named it in its responses, else a local simulation or the `served` weights of an OpenAI-compatible server; null when nothing says. */
      servedModel: z.string().nullable(),
      /** Sampling and decoding parameters as the protocol holds them (credentials removed). */
      params: Settings,
      /** The sampling seed; null when none was set. */
      seed: Scalar,
      cells: z.array(
        z.object({
          ...CellRef,
          mode: z.string(),
          kind: z.enum(['sequential', 'independent']),
          budget: z.number().int().positive(),
          budgetDisclosed: z.boolean(),
          repeats: z.number().int().positive(),
          feedback: z
            .object({ kind: z.string(), name: z.string(), version: z.string(), settings: Settings })
            .nullable(),
          history: z.object({ name: z.string(), settings: Settings }).nullable(),
          promptBuilder: z.string(),
          /** The eval's instructions (the system prompt before every task), when it has them. */
          instructions: z.string().optional(),
          errors: z.string(),
          fingerprint: z.string(),
          /** The fingerprints of the cell's instrument and subject (absent in cards written before the split). */
          instrumentFingerprint: z.string().optional(),
          subjectFingerprint: z.string().optional(),
        }),
      ),
    }),
  ),
  cost: z.object({
    /** Null when calls were made and none reported usage. */
    usage: CallUsageSchema,
    /** Calls whose reply reported no usage (absent: none): `usage` leaves them out. */
    usageUnknownCalls: z.number().int().positive().optional(),
    /** Null when a call had no price. */
    costUsd: MaybeNumber,
    byRole: z.record(
      z.string(),
      z.object({
        usage: CallUsageSchema,
        usageUnknownCalls: z.number().int().positive().optional(),
        costUsd: MaybeNumber,
        calls: z.number().int().nonnegative(),
      }),
    ),
    calls: z.number().int().nonnegative(),
    replayedCalls: z.number().int().nonnegative(),
    /** From the first trajectory's start to the last one's end; null without trajectories. */
    wallTimeMs: MaybeNumber,
    /** The cells' own durations added up. */
    cellTimeMs: z.number().nonnegative(),
    /** Each cell's estimate before it ran beside what it cost: error = (expected − actual) / actual. */
    estimates: z.array(
      z.object({
        ...CellRef,
        expectedUsd: MaybeNumber,
        lowUsd: MaybeNumber,
        highUsd: MaybeNumber,
        actualUsd: MaybeNumber,
        error: MaybeNumber,
        basis: z.string(),
      }),
    ),
    /** Over the cells with both figures: expected and actual added up, and the error of the sum. */
    estimate: z
      .object({
        cells: z.number().int().nonnegative(),
        expectedUsd: z.number(),
        actualUsd: z.number(),
        error: MaybeNumber,
      })
      .nullable(),
  }),
  failures: z.object({
    trajectories: z.number().int().nonnegative(),
    errored: z.number().int().nonnegative(),
    /** Errored trajectories by the stage that failed (actor, verifier, feedback, history). */
    byStage: z.record(z.string(), z.number().int().nonnegative()),
    /** Errored trajectories by class (timeout, rate-limit, server, connection, sandbox, python, other). */
    byClass: z.record(z.string(), z.number().int().nonnegative()),
    /** Errored trajectories whose error was a timeout, and attempts whose code ran out of time (a verdict, not an error). */
    timeouts: z.object({ errors: z.number().int().nonnegative(), verdicts: z.number().int().nonnegative() }),
    unfinishedCells: z.array(z.object({ ...CellRef, reason: z.string() })),
    failedCells: z.array(z.object({ ...CellRef, reasons: z.array(z.string()) })),
  }),
  /** How much of what a disclosure needs is known: the share of required fields that are not null. */
  completeness: z.object({
    score: z.number().min(0).max(1),
    known: z.number().int().nonnegative(),
    required: z.number().int().nonnegative(),
    /** Each required field that is unknown, and how to fill it. */
    missing: z.array(z.object({ field: z.string(), fix: z.string() })),
  }),
})
/** A run's disclosure card (see {@link DisclosureCardSchema}). */
export type DisclosureCard = z.infer<typeof DisclosureCardSchema>
