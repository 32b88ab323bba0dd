/**
 * The disclosure card of a run, built from what the run left: its summary, the cells' declarations
 * (estimates and task provenance, from cells.jsonl), its trajectories and the harness facts. Pure;
 * `environment.ts` collects the facts, the `disclosure.json` emitter writes the card.
 */
import { canonicalJson } from '../core/fingerprint.js'
import { cellInstrument, cellSubject } from '../core/instrument.js'
import { DISCLOSURE_SCHEMA, type DisclosureCard } from '../core/disclosure.js'
import { estimateError } from '../core/estimate.js'
import type { CellSummary, RunSummary, Trajectory } from '../core/schemas.js'
import type { CellStartRecord } from '../artifacts/cells-file.js'
import { addUsage, ZERO_USAGE, type Usage } from '../models/chat-model.js'
import { redactName } from '../models/redact.js'
import { compactCount, money, plural } from '../metrics/format.js'
import type { HarnessFacts } from './environment.js'
import { TEXT_WIDTH as TABLE_WIDTH, wrapLine } from '../core/text-layout.js'

/** The providers whose calls go through each SDK: a run that used one must name its version. */
const SDK_OF_PROVIDER: Readonly<Record<string, string>> = {
  openai: 'openai',
  'openai-compatible': 'openai',
  'seqk-test-server': 'openai',
  anthropic: '@anthropic-ai/sdk',
}

/** Infrastructure errors by class, by what their message says (the first pattern that matches). */
const ERROR_CLASSES: readonly [string, RegExp][] = [
  ['timeout', /timed? ?out|timeout|deadline/i],
  ['rate-limit', /\b429\b|rate.?limit/i],
  ['server', /\bHTTP 5\d\d\b|\b5\d\d\b.*(error|unavailable|overloaded)|overloaded/i],
  ['connection', /ECONNREFUSED|ECONNRESET|ENOTFOUND|EPIPE|socket|connection|unreachable/i],
  ['sandbox', /sandbox|bwrap|bubblewrap/i],
  ['python', /python/i],
]

/** The class of an infrastructure error's message (see {@link ERROR_CLASSES}); `other` when none matches. */
export function errorClass(message: string): string {
  return ERROR_CLASSES.find(([, pattern]) => pattern.test(message))?.[0] ?? 'other'
}

/** What the card is built from. */
export interface DisclosureInput {
  summary: RunSummary
  /** The cells' start records (cells.jsonl): their estimates and task provenance. */
  starts: readonly CellStartRecord[]
  trajectories: readonly Trajectory[]
  harness: Omit<HarnessFacts, 'verifiers' | 'sandbox'>
}

const addCost = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : a + b)
const cellsOf = (summary: RunSummary) => summary.benchmarks.flatMap((b) => b.cells)
const key = (benchmark: string, cellId: string) => `${benchmark}\u0000${cellId}`
const joined = (values: readonly string[]): string | null => (values.length === 0 ? null : values.join(', '))

/**
 * The served model identity, where it is known without the provider's word: a simulated actor is
 * its own seeded simulation, and an OpenAI-compatible server's `served` names its weights.
 */
function servedModel(
  provider: string,
  model: string,
  params: Record<string, unknown>,
  reported: readonly string[],
): string | null {
  // What the provider said served the calls wins: a name can point at a new snapshot.
  // Redacted again for runs recorded before servedModel was (a server that echoed the key as its `model`).
  if (reported.length > 0) return [...new Set(reported.map(redactName))].join(', ')
  if (provider === 'simulated')
    return `simulated:${model} (seeded local simulation${params.seed !== undefined ? `, seed ${String(params.seed)}` : ''})`
  if (typeof params.served === 'string') return params.served
  return null
}

/**
 * Builds the card (see {@link DisclosureCardSchema} for each field) and scores its completeness:
 * the share of required fields that are known, each unknown one named with its fix.
 *
 * @example
 * const card = disclosureCard({ summary, starts, trajectories, harness: await collectHarness({ root, pythonUsed: true, sandboxed: true, by: 'reporter' }) })
 * card.completeness.score // => 1 when every required field is known
 */
export function disclosureCard(input: DisclosureInput): DisclosureCard {
  const { summary, starts } = input
  const cells = cellsOf(summary)
  const startOf = new Map(starts.map((s) => [key(s.benchmark, s.cellId), s]))
  const benchmarks = summary.benchmarks.map((b) => {
    const own = starts.filter((s) => s.benchmark === b.name)
    const values = (field: 'sources' | 'revisions' | 'subsets') =>
      [...new Set(own.flatMap((s) => s.provenance?.[field] ?? []))].sort()
    const first = b.cells[0]
    return {
      name: b.name,
      file: b.file,
      tasks: first?.protocol.benchmark.tasks ?? own[0]?.taskIds.length ?? 0,
      contentHash: first?.protocol.benchmark.contentHash ?? own[0]?.protocol.benchmark.contentHash ?? '',
      source: joined(values('sources')),
      revision: joined(values('revisions')),
      subset: joined(values('subsets')),
    }
  })
  const verifiers = [...new Map(cells.map((c) => [canonicalJson(c.protocol.verifier), c.protocol.verifier])).values()]
  const sandboxed = cells.filter((c) => c.sandboxes)
  const sandbox =
    sandboxed.length === 0
      ? null
      : {
          bwrap: sandboxed.reduce((n, c) => n + (c.sandboxes?.bwrap ?? 0), 0),
          none: sandboxed.reduce((n, c) => n + (c.sandboxes?.none ?? 0), 0),
        }
  const harness: HarnessFacts = { ...input.harness, verifiers, sandbox }
  const inference = inferenceOf(cells, startOf, input.trajectories)
  const cost = costOf(cells, startOf, input.trajectories)
  const failures = failuresOf(cells, input.trajectories)
  const card: Omit<DisclosureCard, 'completeness'> = {
    schema: DISCLOSURE_SCHEMA,
    runId: summary.runId,
    createdAt: summary.createdAt,
    benchmarks,
    harness,
    inference,
    cost,
    failures,
  }
  return { ...card, completeness: completeness(card) }
}

function inferenceOf(
  cells: readonly CellSummary[],
  startOf: ReadonlyMap<string, CellStartRecord>,
  trajectories: readonly Trajectory[],
): DisclosureCard['inference'] {
  const reported = new Map<string, Set<string>>()
  for (const t of trajectories)
    for (const a of t.attempts)
      if (a.servedModel)
        (reported.get(t.actorId) ?? reported.set(t.actorId, new Set()).get(t.actorId)!).add(a.servedModel)
  const byActor = new Map<string, DisclosureCard['inference'][number]>()
  for (const c of cells) {
    const { actor } = c.protocol
    let entry = byActor.get(c.actorId)
    if (!entry) {
      entry = {
        actorId: c.actorId,
        provider: actor.provider,
        model: actor.model,
        servedModel: servedModel(
          actor.provider,
          actor.model,
          actor.params,
          [...(reported.get(c.actorId) ?? [])].sort(),
        ),
        params: actor.params,
        seed: actor.params.seed ?? null,
        cells: [],
      }
      byActor.set(c.actorId, entry)
    }
    const p = c.protocol
    entry.cells.push({
      benchmark: c.benchmark,
      cellId: c.cellId,
      mode: c.mode,
      kind: p.kind,
      budget: p.budget,
      budgetDisclosed: p.budgetDisclosed,
      repeats: startOf.get(key(c.benchmark, c.cellId))?.repeats ?? c.repeats,
      feedback: p.feedback,
      history: p.history,
      promptBuilder: p.promptBuilder,
      ...(p.instructions !== undefined ? { instructions: p.instructions } : {}),
      errors: p.errors ?? (p.errorsCountedAsFailures ? 'failures' : 'left-out'),
      fingerprint: c.fingerprint,
      instrumentFingerprint: cellInstrument(c).fingerprint,
      subjectFingerprint: cellSubject(c).fingerprint,
    })
  }
  return [...byActor.values()]
}

/** Usage added over cells or roles: null only when calls were made and none reported usage. */
interface Spent {
  usage: Usage | null
  usageUnknownCalls: number
  calls: number
}

function addSpent(a: Spent, b: { usage: Usage | null; usageUnknownCalls?: number; calls: number }): Spent {
  const usage = a.usage === null ? b.usage : b.usage === null ? a.usage : addUsage(a.usage, b.usage)
  return { usage, usageUnknownCalls: a.usageUnknownCalls + (b.usageUnknownCalls ?? 0), calls: a.calls + b.calls }
}

function spentFields(s: Spent): { usage: Usage | null; usageUnknownCalls?: number } {
  // No calls at all used no tokens: that zero is known.
  const usage = s.usage ?? (s.calls === 0 ? ZERO_USAGE : null)
  return { usage, ...(s.usageUnknownCalls > 0 ? { usageUnknownCalls: s.usageUnknownCalls } : {}) }
}

function costOf(
  cells: readonly CellSummary[],
  startOf: ReadonlyMap<string, CellStartRecord>,
  trajectories: readonly Trajectory[],
): DisclosureCard['cost'] {
  let total: Spent = { usage: null, usageUnknownCalls: 0, calls: 0 }
  let costUsd: number | null = 0
  const roles = new Map<string, Spent & { costUsd: number | null }>()
  for (const c of cells) {
    total = addSpent(total, c)
    costUsd = addCost(costUsd, c.costUsd)
    for (const [role, r] of Object.entries(c.byRole)) {
      const sum = roles.get(role) ?? { usage: null, usageUnknownCalls: 0, calls: 0, costUsd: 0 }
      roles.set(role, { ...addSpent(sum, r), costUsd: addCost(sum.costUsd, r.costUsd) })
    }
  }
  const byRole: DisclosureCard['cost']['byRole'] = Object.fromEntries(
    [...roles].map(([role, r]) => [role, { ...spentFields(r), costUsd: r.costUsd, calls: r.calls }]),
  )
  let first = Infinity
  let last = -Infinity
  for (const t of trajectories) {
    const start = Date.parse(t.startedAt)
    if (!Number.isFinite(start)) continue
    first = Math.min(first, start)
    last = Math.max(last, start + t.durationMs)
  }
  const estimates = cells.flatMap((c) => {
    const estimate = startOf.get(key(c.benchmark, c.cellId))?.estimate
    if (!estimate) return []
    // A shard's cost covers its share of the tasks, the estimate the whole cell: no error between them.
    const actualUsd = c.shard ? null : c.costUsd
    const basis =
      estimate.basis.kind === 'previous-run'
        ? `previous run ${estimate.basis.runId} (${estimate.basis.match})`
        : 'prompt sizes'
    return [
      {
        benchmark: c.benchmark,
        cellId: c.cellId,
        expectedUsd: estimate.costUsd.expected,
        lowUsd: estimate.costUsd.low,
        highUsd: estimate.costUsd.high,
        actualUsd,
        error: estimateError(estimate.costUsd.expected, actualUsd),
        basis,
      },
    ]
  })
  const both = estimates.filter((e) => e.expectedUsd !== null && e.actualUsd !== null)
  const expectedUsd = both.reduce((n, e) => n + e.expectedUsd!, 0)
  const actualUsd = both.reduce((n, e) => n + e.actualUsd!, 0)
  return {
    ...spentFields(total),
    costUsd,
    byRole,
    calls: cells.reduce((n, c) => n + c.calls, 0),
    replayedCalls: cells.reduce((n, c) => n + c.replayedCalls, 0),
    wallTimeMs: Number.isFinite(first) ? last - first : null,
    cellTimeMs: cells.reduce((n, c) => n + c.durationMs, 0),
    estimates,
    estimate:
      both.length === 0
        ? null
        : { cells: both.length, expectedUsd, actualUsd, error: estimateError(expectedUsd, actualUsd) },
  }
}

function failuresOf(cells: readonly CellSummary[], trajectories: readonly Trajectory[]): DisclosureCard['failures'] {
  const byStage: Record<string, number> = {}
  const byClass: Record<string, number> = {}
  let timeoutErrors = 0
  let timeoutVerdicts = 0
  for (const t of trajectories) {
    for (const a of t.attempts) if (a.verdict.diagnostics.outcome === 'timeout') timeoutVerdicts++
    if (t.status !== 'error' || !t.error) continue
    byStage[t.error.stage] = (byStage[t.error.stage] ?? 0) + 1
    const cls = errorClass(t.error.message)
    byClass[cls] = (byClass[cls] ?? 0) + 1
    if (cls === 'timeout') timeoutErrors++
  }
  const unfinishedCells = cells.flatMap((c) =>
    c.thresholds
      .filter((t) => t.metric === 'finished' && !t.pass)
      .map((t) => ({ benchmark: c.benchmark, cellId: c.cellId, reason: t.message })),
  )
  const failedCells = cells
    .filter((c) => c.verdict === 'fail')
    .map((c) => ({
      benchmark: c.benchmark,
      cellId: c.cellId,
      reasons: [
        ...c.thresholds.filter((t) => !t.pass).map((t) => t.message),
        ...(c.gate && (c.gate.status === 'fail' || c.gate.status === 'missing')
          ? c.gate.messages.map((m) => `baseline: ${m}`)
          : []),
      ],
    }))
  return {
    trajectories: cells.reduce((n, c) => n + c.trajectories, 0),
    errored: cells.reduce((n, c) => n + c.errors.count, 0),
    byStage,
    byClass,
    timeouts: { errors: timeoutErrors, verdicts: timeoutVerdicts },
    unfinishedCells,
    failedCells,
  }
}

/**
 * The required fields that can be unknown, each with its value and the fix when it is. Fields
 * that are always known (names, counts, hashes, settings) are not scored: they would only pad it.
 */
function requiredFields(card: Omit<DisclosureCard, 'completeness'>): { field: string; known: boolean; fix: string }[] {
  const h = card.harness
  const fields = [
    ...card.benchmarks.map((b) => ({
      field: `benchmarks["${b.name}"].source`,
      known: b.source !== null,
      fix: "give each task metadata.source (the benchmark loaders do; a self-written task set can say e.g. { source: 'my-team/qa-set' })",
    })),
    { field: 'harness.vitestSeqk', known: h.vitestSeqk !== null, fix: "vitest-seqk's package.json could not be read" },
    { field: 'harness.vitest', known: h.vitest !== null, fix: 'Vitest could not be resolved from the project root' },
    { field: 'harness.node', known: h.node !== null, fix: 'the Node version was not recorded' },
    ...(h.pythonUsed
      ? [
          {
            field: 'harness.python',
            known: h.python !== null,
            fix: 'no Python interpreter could be resolved (set SEQK_PYTHON)',
          },
        ]
      : []),
    ...(h.pythonUsed
      ? [{ field: 'harness.sandbox', known: h.sandbox !== null, fix: 'no verdict recorded its sandbox mode' }]
      : []),
    ...[
      ...new Set(card.inference.map((a) => SDK_OF_PROVIDER[a.provider]).filter((s): s is string => s !== undefined)),
    ].map((sdk) => ({
      field: `harness.sdks["${sdk}"]`,
      known: (h.sdks[sdk] ?? null) !== null,
      fix: `the ${sdk} package could not be resolved from the project`,
    })),
    { field: 'harness.os', known: h.os !== null, fix: 'the operating system was not recorded' },
    {
      field: 'harness.git.commit',
      known: h.git.commit !== null,
      fix: 'run from a git work tree (with git on PATH) so the commit can be recorded',
    },
    {
      field: 'harness.git.clean',
      known: h.git.clean !== null,
      fix: 'run from a git work tree so the state of its tracked files can be recorded',
    },
    ...card.inference.map((a) => ({
      field: `inference["${a.actorId}"].servedModel`,
      known: a.servedModel !== null,
      fix: "the provider reported no served model (the response's `model`) and the actor names none: for an OpenAI-compatible server, name the weights with `served`",
    })),
    {
      field: 'cost.costUsd',
      known: card.cost.costUsd !== null,
      fix: 'give every model a price (`prices`): a call without one makes the total unknown',
    },
    { field: 'cost.wallTimeMs', known: card.cost.wallTimeMs !== null, fix: 'the run recorded no trajectories' },
  ]
  return fields
}

function completeness(card: Omit<DisclosureCard, 'completeness'>): DisclosureCard['completeness'] {
  const fields = requiredFields(card)
  const known = fields.filter((f) => f.known).length
  return {
    score: fields.length === 0 ? 1 : known / fields.length,
    known,
    required: fields.length,
    missing: fields.filter((f) => !f.known).map(({ field, fix }) => ({ field, fix })),
  }
}

const settingsText = (s: Record<string, unknown>): string => {
  const entries = Object.entries(s)
  return entries.length === 0
    ? 'defaults'
    : entries.map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ')
}
const known = (v: string | null | undefined): string => v ?? 'unknown'

/**
 * The card as `seqk disclose` prints it: one section per part, every line within 120 columns,
 * unknown values said as "unknown" and the completeness score with what is missing.
 *
 * @example
 * console.log(renderDisclosure(card))
 */
export function renderDisclosure(card: DisclosureCard): string {
  return disclosureLines(card)
    .flatMap((line) => wrapLine(line, TABLE_WIDTH, 3))
    .join('\n')
}

/**
 * The card's lines before wrapping, as `seqk disclose` and the report both show them: the title,
 * then each part as a heading (no indent) and its lines (indented), parts apart by an empty line.
 */
export function disclosureLines(card: DisclosureCard): string[] {
  const h = card.harness
  const c = card.cost
  const f = card.failures
  const lines: string[] = [`Disclosure card of run ${card.runId} (${card.createdAt})`, '', 'Benchmark']
  for (const b of card.benchmarks) {
    lines.push(` ${b.name} (${b.file}): ${plural(b.tasks, 'task')}, content hash ${b.contentHash}`)
    lines.push(
      `   source ${known(b.source)} · revision ${b.revision ?? 'not given'} · subset ${b.subset ?? 'not given'}`,
    )
  }
  lines.push('', 'Harness')
  lines.push(
    ` vitest-seqk ${known(h.vitestSeqk)} · Vitest ${known(h.vitest)} · Node ${known(h.node)} · Python ${h.python ? `${h.python.version} (${h.python.path})` : h.pythonUsed ? 'unknown' : 'not used'}`,
  )
  lines.push(
    ` SDKs: ${Object.entries(h.sdks)
      .map(([name, v]) => `${name} ${v ?? 'not installed'}`)
      .join(' · ')}`,
  )
  for (const v of h.verifiers) lines.push(` verifier ${v.name} v${v.version}: ${settingsText(v.settings)}`)
  if (h.sandbox) lines.push(` sandbox: ${h.sandbox.bwrap} attempts under bubblewrap, ${h.sandbox.none} without`)
  lines.push(` OS: ${h.os ? `${h.os.platform} ${h.os.arch}, kernel ${h.os.release} (${h.os.version})` : 'unknown'}`)
  lines.push(
    ` git: commit ${known(h.git.commit)}${h.git.branch ? ` on ${h.git.branch}` : ''}, tracked files ${h.git.clean === null ? 'unknown' : h.git.clean ? 'clean' : 'modified'}`,
  )
  lines.push(` collected ${h.collected.at} by ${h.collected.by}${h.collected.note ? ` (${h.collected.note})` : ''}`)
  lines.push('', 'Inference')
  for (const a of card.inference) {
    lines.push(
      ` ${a.actorId}: ${a.provider}:${a.model}, served ${known(a.servedModel)}, seed ${a.seed === null ? 'none' : String(a.seed)}`,
    )
    lines.push(`   parameters ${settingsText(a.params)}`)
    for (const cell of a.cells) {
      const feedback = cell.feedback
        ? `${cell.feedback.kind} feedback (${cell.feedback.name} v${cell.feedback.version})`
        : 'independent samples'
      const history = cell.history ? `, history ${cell.history.name}` : ''
      lines.push(
        `   ${cell.benchmark} › ${cell.cellId}: K=${cell.budget}${cell.budgetDisclosed ? ' (disclosed)' : ''}, ${plural(cell.repeats, 'repeat')}, ${feedback}${history}, prompt ${cell.promptBuilder}, errors ${cell.errors}, fingerprint ${cell.fingerprint}${cell.instrumentFingerprint ? ` (instrument ${cell.instrumentFingerprint}, subject ${cell.subjectFingerprint})` : ''}`,
      )
      if (cell.instructions !== undefined) lines.push(`     instructions ${JSON.stringify(cell.instructions)}`)
    }
  }
  lines.push('', 'Cost')
  lines.push(` ${money(c.costUsd)} for ${plural(c.calls, 'call')} (${c.replayedCalls} replayed): ${tokensLine(c)}`)
  lines.push(
    ` by role: ${
      Object.entries(c.byRole)
        .map(([role, r]) => `${role} ${money(r.costUsd)} (${plural(r.calls, 'call')})`)
        .join(' · ') || 'none'
    }`,
  )
  lines.push(
    ` wall time ${c.wallTimeMs === null ? 'unknown' : `${(c.wallTimeMs / 1000).toFixed(1)} s`}; cells ${(c.cellTimeMs / 1000).toFixed(1)} s together`,
  )
  if (c.estimate)
    lines.push(
      ` estimated before the run ${money(c.estimate.expectedUsd)}, actual ${money(c.estimate.actualUsd)}: error ${c.estimate.error === null ? 'unknown' : `${(c.estimate.error * 100).toFixed(1)}%`} over ${plural(c.estimate.cells, 'cell')}`,
    )
  else
    lines.push(
      ` no cell had an expected cost before it ran${c.estimates.length > 0 ? ' (no previous run to take stop rates from)' : ''}`,
    )
  lines.push('', 'Failures')
  const classes = Object.entries(f.byClass)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ')
  lines.push(
    ` ${f.errored} of ${plural(f.trajectories, 'trajectory', 'trajectories')} ended in an infrastructure error${classes ? ` (${classes})` : ''}; ${f.timeouts.verdicts} attempts ran out of time`,
  )
  for (const u of f.unfinishedCells) lines.push(` unfinished ${u.benchmark} › ${u.cellId}: ${u.reason}`)
  lines.push(
    ` failed cells: ${f.failedCells.length === 0 ? 'none' : f.failedCells.map((x) => `${x.benchmark} › ${x.cellId}`).join(', ')}`,
  )
  const m = card.completeness
  lines.push('', `Completeness ${(m.score * 100).toFixed(0)}% (${m.known} of ${m.required} required fields known)`)
  for (const miss of m.missing) lines.push(` missing ${miss.field}: ${miss.fix}`)
  return lines
}

function tokensLine(c: DisclosureCard['cost']): string {
  const unknown = c.usageUnknownCalls ? `; ${plural(c.usageUnknownCalls, 'call')} reported no usage` : ''
  if (c.usage === null) return `tokens unknown${unknown}`
  const u = c.usage
  return `${compactCount(u.inputTokens)} tokens in (${compactCount(u.cacheReadTokens)} cached), ${compactCount(u.outputTokens)} out${unknown}`
}
