import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { z } from 'zod'
import { passAtCurve, seqAtCurve, seqAtCurveCensored } from '../metrics/index.js'
import { protocolFingerprint } from '../core/fingerprint.js'
import { instrumentOf, subjectOf } from '../core/instrument.js'
import { censoredRow } from '../metrics/task-rates.js'
import { CellSummarySchema, errorPolicyOf, ProtocolSchema, type Protocol } from '../core/schemas.js'
import { describeZodError } from '../core/zod-errors.js'

export const BASELINE_SCHEMA = 'seqk.baseline/1'
const PROTOCOL_SCHEMA = 'seqk.protocol/1'

/** One cell of a baseline file: its protocol fingerprint and per-task rates. */
export const BaselineCellSchema = z.object({
  fingerprint: z.string(),
  protocol: ProtocolSchema,
  /** The cell's mode (`verifier`, `independent`, …), for matching a cell whose subject's id changed (absent in older files: read from the cell id). */
  mode: z.string().optional(),
  /** The fingerprints of the protocol's instrument (with the repeats) and subject (absent in older files). */
  instrumentFingerprint: z.string().optional(),
  subjectFingerprint: z.string().optional(),
  perTask: CellSummarySchema.shape.perTask,
  seqAt: z.array(z.number().nullable()),
  passAt: z.array(z.number().nullable()).nullable(),
  recordedAt: z.string(),
  commit: z.string().nullable().optional(),
})

/** A committed baseline: per benchmark, per cell, what the gate compares against. */
export const BaselineFileSchema = z.object({
  schema: z.literal(BASELINE_SCHEMA),
  benchmarks: z.record(z.string(), z.object({ cells: z.record(z.string(), BaselineCellSchema) })),
})
export type BaselineFile = z.infer<typeof BaselineFileSchema>
export type BaselineCellJson = z.infer<typeof BaselineCellSchema>

/** How every baseline problem ends: what to do about it. */
export const BASELINE_FIX =
  'Re-record it with `vitest run -u` (or SEQK_UPDATE_BASELINE=1), or restore the file from git.'

/**
 * A baseline file that cannot be used: not JSON, the wrong shape, a schema this version does not
 * read, or numbers that do not add up. `problems` holds one sentence per problem, each naming the
 * benchmark, the cell and the field; the message names the file and the fix as well.
 */
export class BaselineFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
    readonly fix = BASELINE_FIX,
  ) {
    const shown = problems.slice(0, 12)
    const more = problems.length > shown.length ? `\n  - … and ${problems.length - shown.length} more` : ''
    const tail = fix === '' ? '' : problems.length === 1 ? ` ${fix}` : `\n${fix}`
    super(
      problems.length === 1
        ? `${file}: ${problems[0]}${tail}`
        : `${file}: ${problems.length} problems:\n${shown.map((p) => `  - ${p}`).join('\n')}${more}${tail}`,
    )
    this.name = 'BaselineFileError'
  }
}

/** One problem of one cell: where, and what is wrong. */
export interface BaselineProblem {
  benchmark: string
  cell: string
  /** The field, as a path inside the cell (`perTask[3].firstSuccess[1]`, `fingerprint`). */
  field: string
  message: string
}

const describeProblem = (p: BaselineProblem) =>
  `benchmark ${JSON.stringify(p.benchmark)}, cell ${JSON.stringify(p.cell)}: ${p.field}: ${p.message}.`

const otherSeqkFiles: Record<string, string> = {
  'seqk.summary': 'a run summary (summary.json)',
  'seqk.cell': 'a cell summary',
  'seqk.trajectory': 'a trajectory record',
  'seqk.cassette': 'a cassette recording',
  'seqk.protocol': 'a protocol record',
}

/**
 * Why `found` is a schema this version cannot read, or undefined when it is `expected` (or absent
 * or not a string: the shape check then says what is missing).
 */
function schemaProblem(found: unknown, expected: string, what: string): string | undefined {
  if (typeof found !== 'string' || found === expected) return undefined
  const [name, version] = found.split('/')
  const [expectedName, expectedVersion] = expected.split('/')
  if (name === expectedName && /^\d+$/.test(version ?? '') && Number(version) > Number(expectedVersion)) {
    return `${what} has schema ${JSON.stringify(found)}, written by a newer vitest-seqk; this version reads ${JSON.stringify(expected)}. Upgrade vitest-seqk to the version that wrote it, or re-record it with this one (\`vitest run -u\`).`
  }
  if (name === expectedName)
    return `${what} has schema ${JSON.stringify(found)}, which no vitest-seqk writes (this version reads ${JSON.stringify(expected)}).`
  if (name !== undefined && Object.hasOwn(otherSeqkFiles, name))
    return `${what} is ${otherSeqkFiles[name]} (schema ${JSON.stringify(found)}), not a baseline (${JSON.stringify(expected)}): a baseline is written by a run with \`baseline: true\`.`
  return `${what} has the unknown schema ${JSON.stringify(found)}; a seqk baseline has ${JSON.stringify(expected)}.`
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/** The protocol of every cell as stored, before parsing (which drops fields this version does not know). */
function rawProtocols(json: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>()
  const benchmarks = isRecord(json) ? json.benchmarks : undefined
  if (!isRecord(benchmarks)) return out
  for (const [b, entry] of Object.entries(benchmarks)) {
    const cells = isRecord(entry) ? entry.cells : undefined
    if (!isRecord(cells)) continue
    for (const [c, cell] of Object.entries(cells)) if (isRecord(cell)) out.set(JSON.stringify([b, c]), cell.protocol)
  }
  return out
}

type Parsed =
  | { kind: 'missing' }
  | { kind: 'unreadable'; error: BaselineFileError }
  | { kind: 'read'; file: BaselineFile; raw: BaselineFile; problems: BaselineProblem[] }

function parseBaseline(path: string): Parsed {
  if (!existsSync(path)) return { kind: 'missing' }
  const unreadable = (
    problem: string,
    fix = 'Restore it from git, or delete it and write a new one with `vitest run -u`.',
  ): Parsed => ({ kind: 'unreadable', error: new BaselineFileError(path, [problem], fix) })
  let json: unknown
  try {
    json = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    return unreadable(`the baseline is not valid JSON (${(error as Error).message}).`)
  }
  const fileSchema = schemaProblem(isRecord(json) ? json.schema : undefined, BASELINE_SCHEMA, 'the file')
  if (fileSchema) return unreadable(fileSchema, '')
  const protocols = rawProtocols(json)
  for (const [where, protocol] of protocols) {
    const [b, c] = JSON.parse(where) as [string, string]
    const problem = schemaProblem(
      isRecord(protocol) ? protocol.schema : undefined,
      PROTOCOL_SCHEMA,
      `benchmark ${JSON.stringify(b)}, cell ${JSON.stringify(c)}: the protocol`,
    )
    if (problem) return unreadable(problem, '')
  }
  const parsed = BaselineFileSchema.safeParse(json)
  if (!parsed.success) return unreadable(`not a seqk baseline (${describeZodError(parsed.error)}).`)
  const problems: BaselineProblem[] = []
  for (const [benchmark, { cells }] of Object.entries(parsed.data.benchmarks)) {
    for (const [cellId, cell] of Object.entries(cells))
      problems.push(
        ...baselineCellProblems(benchmark, cellId, cell, protocols.get(JSON.stringify([benchmark, cellId]))),
      )
  }
  // `raw` is the file as stored (fields this version does not know included), for rewriting it.
  return { kind: 'read', file: parsed.data, raw: json as BaselineFile, problems }
}

/**
 * Reads a baseline file and checks it for meaning (see {@link baselineCellProblems}), returning the
 * cells that do not add up rather than throwing for them, so a gate can fail just those cells.
 * Missing → undefined.
 *
 * @throws BaselineFileError when the file is not JSON, has the wrong shape or a schema this version does not read.
 */
export function inspectBaselineFile(path: string): { file: BaselineFile; problems: BaselineProblem[] } | undefined {
  const parsed = parseBaseline(path)
  if (parsed.kind === 'missing') return undefined
  if (parsed.kind === 'unreadable') throw parsed.error
  return { file: parsed.file, problems: parsed.problems }
}

/** One problem as a sentence: the benchmark, the cell, the field and what is wrong. */
export function describeBaselineProblem(problem: BaselineProblem): string {
  return describeProblem(problem)
}

/**
 * Reads a baseline file, checked for shape and for meaning: every cell's fingerprint is recomputed
 * from its stored protocol, its per-task rows fit the protocol (first successes within K, one row
 * per task, the same repeats for every task, counts that agree with each other) and its stored
 * Seq@k and Pass@k are the ones its rows give. A bad or hand-edited file fails naming the file,
 * the benchmark, the cell, the field and the fix. Missing → undefined.
 *
 * @throws BaselineFileError
 * @example
 * const baseline = readBaselineFile('evals/seqk.baseline.json')
 * baseline?.benchmarks['HumanEval Pro']?.cells['openai:gpt-4.1-mini · verifier']?.perTask.length
 */
export function readBaselineFile(path: string): BaselineFile | undefined {
  const inspected = inspectBaselineFile(path)
  if (inspected && inspected.problems.length > 0)
    throw new BaselineFileError(path, inspected.problems.map(describeProblem))
  return inspected?.file
}

type Row = BaselineCellJson['perTask'][number]

/** Equal up to rounding (JSON round-trips doubles exactly; the tolerance only forgives summation order). */
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9

const listed = (items: readonly string[]) =>
  `${items.slice(0, 5).join(', ')}${items.length > 5 ? `, … (${items.length})` : ''}`

/**
 * How many repeats a row stands for, under the protocol's error policy: its first successes, and
 * its errored repeats where the policy keeps them out of `firstSuccess` (see summariseCell).
 */
function repeatsOfRow(row: Row, policy: ReturnType<typeof errorPolicyOf>, independent: boolean): number {
  if (policy === 'failures') return row.firstSuccess.length
  if (policy === 'censored' && !independent) return row.firstSuccess.length + (row.censoredAt?.length ?? 0)
  return row.firstSuccess.length + row.errors
}

/**
 * What does not add up in one cell of a baseline that has the right shape: a fingerprint that is
 * not the stored protocol's, first successes beyond K, tasks that repeat or do not match the
 * protocol's task count, repeat counts that differ between tasks, counts that contradict each
 * other, and stored Seq@k or Pass@k that its rows do not give. Empty for a cell as a run writes it.
 *
 * @param rawProtocol the protocol as stored (before parsing drops fields this version does not
 *   know): the fingerprint is recomputed from it. Default: `cell.protocol`.
 */
export function baselineCellProblems(
  benchmark: string,
  cellId: string,
  cell: BaselineCellJson,
  rawProtocol: unknown = cell.protocol,
): BaselineProblem[] {
  const problems: BaselineProblem[] = []
  const add = (field: string, message: string) => problems.push({ benchmark, cell: cellId, field, message })
  const protocol: Protocol = cell.protocol
  const K = protocol.budget
  const independent = protocol.kind === 'independent'
  const policy = errorPolicyOf(protocol)

  const recomputed = protocolFingerprint(rawProtocol as Protocol)
  if (cell.fingerprint !== recomputed)
    add(
      'fingerprint',
      `is ${JSON.stringify(cell.fingerprint)}, but the stored protocol's fingerprint is ${JSON.stringify(recomputed)}: the protocol or the fingerprint was edited`,
    )
  // The split's fingerprints are checked where the protocol's is right (an edited protocol is said once).
  const protocolIntact = cell.fingerprint === recomputed
  const subject = subjectOf(rawProtocol as Protocol).fingerprint
  if (protocolIntact && cell.subjectFingerprint !== undefined && cell.subjectFingerprint !== subject)
    add(
      'subjectFingerprint',
      `is ${JSON.stringify(cell.subjectFingerprint)}, but the stored protocol's subject has ${JSON.stringify(subject)}: the protocol or the fingerprint was edited`,
    )
  if (protocol.benchmark.name !== benchmark)
    add(
      'protocol.benchmark.name',
      `is ${JSON.stringify(protocol.benchmark.name)}, but the cell is filed under benchmark ${JSON.stringify(benchmark)}`,
    )
  if (independent && (protocol.feedback !== null || protocol.history !== null))
    add(
      'protocol.kind',
      'is "independent", but the protocol has a feedback mode or a history policy (only sequential cells have them)',
    )
  if (!independent && (protocol.feedback === null || protocol.history === null))
    add('protocol.kind', 'is "sequential", but the protocol has no feedback mode or no history policy')
  if (independent && protocol.budgetDisclosed)
    add('protocol.budgetDisclosed', 'is true for an independent cell: independent samples are never told the budget')
  if (protocol.errors !== undefined && protocol.errorsCountedAsFailures !== (protocol.errors === 'failures'))
    add(
      'protocol.errorsCountedAsFailures',
      `is ${protocol.errorsCountedAsFailures}, but protocol.errors is ${JSON.stringify(protocol.errors)}`,
    )
  if (Number.isNaN(Date.parse(cell.recordedAt)))
    add('recordedAt', `is ${JSON.stringify(cell.recordedAt)}, not a date and time`)

  // The curves: one entry per k = 1..K.
  let curvesShaped = true
  if (cell.seqAt.length !== K) {
    add('seqAt', `has ${cell.seqAt.length} entries, but the budget is K = ${K} (protocol.budget): one per k = 1..K`)
    curvesShaped = false
  }
  if (independent && (cell.passAt === null || cell.passAt.length !== K)) {
    add(
      'passAt',
      `${cell.passAt === null ? 'is null' : `has ${cell.passAt.length} entries`}, but an independent cell has one Pass@k per k = 1..K (K = ${K})`,
    )
    curvesShaped = false
  }
  if (!independent && cell.passAt !== null)
    add('passAt', 'is set, but only independent cells have Pass@k (a sequential cell stores null)')

  // The rows: one per task of the protocol, each within the budget.
  const rows = cell.perTask
  if (rows.length === 0) add('perTask', 'is empty: a cell that measured nothing is never a baseline')
  const before = problems.length
  if (rows.length !== protocol.benchmark.tasks) {
    add(
      'perTask',
      `has ${rows.length} rows, but the protocol's benchmark has ${protocol.benchmark.tasks} tasks (protocol.benchmark.tasks): one row per task`,
    )
  }
  const firstRow = new Map<string, number>()
  const repeats: number[] = []
  rows.forEach((row, i) => {
    const at = `perTask[${i}] (task ${JSON.stringify(row.taskId)})`
    const seen = firstRow.get(row.taskId)
    if (seen !== undefined)
      add(`perTask[${i}].taskId`, `repeats task ${JSON.stringify(row.taskId)} of perTask[${seen}]: one row per task`)
    else firstRow.set(row.taskId, i)
    if (row.taskId === '') add(`perTask[${i}].taskId`, 'is empty')
    row.firstSuccess.forEach((f, j) => {
      if (f !== null && f > K)
        add(
          `${at}.firstSuccess[${j}]`,
          `is ${f}, beyond the budget K = ${K} (protocol.budget): a first success is an attempt 1..K, or null`,
        )
    })
    const censoredAt = row.censoredAt ?? []
    if (censoredAt.length > 0 && (policy !== 'censored' || independent))
      add(
        `${at}.censoredAt`,
        `is set, but only sequential cells under errors: "censored" censor errored repeats (this cell: ${independent ? 'independent' : `errors: ${JSON.stringify(policy)}`})`,
      )
    censoredAt.forEach((c, j) => {
      if (c > K)
        add(`${at}.censoredAt[${j}]`, `is ${c}, beyond the budget K = ${K}: a repeat is censored at an attempt 1..K`)
    })
    if (policy === 'censored' && !independent && censoredAt.length !== row.errors)
      add(`${at}.errors`, `is ${row.errors}, but the row censors ${censoredAt.length} errored repeats (censoredAt)`)
    if (policy === 'failures' && row.errors > row.firstSuccess.filter((f) => f === null).length)
      add(
        `${at}.errors`,
        `is ${row.errors}, more than the row's failed repeats (errors count as failures in this cell)`,
      )
    const n = repeatsOfRow(row, policy, independent)
    repeats.push(n)
    if (row.costAtK.length !== K)
      add(`${at}.costAtK`, `has ${row.costAtK.length} entries, but the budget is K = ${K}: one per k = 1..K`)
    row.costAtK.forEach((c, k) => {
      if (c !== null && !(c >= 0)) add(`${at}.costAtK[${k}]`, `is ${c}: a cost is never negative`)
    })
    if (independent) {
      if (row.samples === undefined || row.passes === undefined) {
        add(at, 'has no samples or passes, which an independent cell keeps per task')
      } else {
        const solved = row.firstSuccess.filter((f) => f !== null).length
        if (row.passes > row.samples) add(`${at}.passes`, `is ${row.passes}, more than its ${row.samples} samples`)
        if (row.samples > n * K) add(`${at}.samples`, `is ${row.samples}, more than ${n} repeats × K = ${K} samples`)
        if (row.errors === 0 && row.samples !== n * K)
          add(`${at}.samples`, `is ${row.samples}, but ${n} repeats of K = ${K} samples each draw ${n * K}`)
        if (row.passes < solved)
          add(`${at}.passes`, `is ${row.passes}, fewer than the ${solved} repeats with a first success`)
        if (row.errors === 0) {
          // Each repeat solved at sample f can pass at most its K - f + 1 remaining samples.
          const most = row.firstSuccess.reduce<number>((sum, f) => sum + (f === null ? 0 : K - f + 1), 0)
          if (row.passes > most)
            add(
              `${at}.passes`,
              `is ${row.passes}, but its first successes (${JSON.stringify(row.firstSuccess)}) leave room for at most ${most} passing samples`,
            )
        }
      }
    } else if (row.samples !== undefined || row.passes !== undefined) {
      add(at, 'has samples or passes, which only independent cells keep')
    }
  })
  // The same repeats for every task: a cell runs every task × repeats trajectories.
  if (repeats.length > 0) {
    const counts = new Map<number, number>()
    for (const n of repeats) counts.set(n, (counts.get(n) ?? 0) + 1)
    const usual = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]![0]
    const odd = rows.map((row, i) => ({ row, i, n: repeats[i]! })).filter((r) => r.n !== usual)
    if (usual === 0) add('perTask', 'has no repeats: every row is empty')
    else if (odd.length > 0) {
      add(
        `perTask[${odd[0]!.i}]`,
        `${listed(odd.map((r) => `task ${JSON.stringify(r.row.taskId)} has ${r.n} repeats`))}, but the other tasks have ${usual}: every task runs the same repeats`,
      )
    }
    if (usual > 1000) add('perTask', `has ${usual} repeats per task, more than the 1000 seqEval allows`)
    const instrument = usual > 0 ? instrumentOf(protocol, usual).fingerprint : undefined
    if (
      protocolIntact &&
      instrument !== undefined &&
      cell.instrumentFingerprint !== undefined &&
      cell.instrumentFingerprint !== instrument
    )
      add(
        'instrumentFingerprint',
        `is ${JSON.stringify(cell.instrumentFingerprint)}, but the stored protocol's instrument with ${usual} repeats has ${JSON.stringify(instrument)}: the protocol, the rows or the fingerprint was edited`,
      )
  }

  // The stored curves are what the rows give (checked only when the rows themselves are sound).
  if (problems.length === before && curvesShaped && rows.length > 0) {
    const seq =
      !independent && policy === 'censored' ? seqAtCurveCensored(rows.map(censoredRow), K) : seqAtCurve(rows, K)
    const wrongSeq: string[] = []
    seq.forEach((value, i) => {
      const stored = cell.seqAt[i]
      // Told its budget, the actor may plan for K attempts: only Seq@K itself is a number.
      const expected = !independent && protocol.budgetDisclosed && i !== K - 1 ? Number.NaN : value
      const ok = Number.isNaN(expected)
        ? stored === null
        : stored !== null && stored !== undefined && close(stored, expected)
      if (!ok)
        wrongSeq.push(
          `Seq@${i + 1} is ${stored === null ? 'null' : stored} where the rows give ${Number.isNaN(expected) ? 'none (null)' : expected}`,
        )
    })
    if (wrongSeq.length > 0) add('seqAt', `${listed(wrongSeq)}: the stored numbers do not match the per-task rows`)
    if (independent && cell.passAt) {
      const pass = passAtCurve(
        rows.map((r) => ({ taskId: r.taskId, n: r.samples ?? 0, c: r.passes ?? 0 })),
        K,
      )
      const wrongPass: string[] = []
      pass.forEach((value, i) => {
        const stored = cell.passAt![i]
        const ok = Number.isNaN(value)
          ? stored === null
          : stored !== null && stored !== undefined && close(stored, value)
        if (!ok)
          wrongPass.push(
            `Pass@${i + 1} is ${stored === null ? 'null' : stored} where the rows give ${Number.isNaN(value) ? 'none (null)' : value}`,
          )
      })
      if (wrongPass.length > 0)
        add('passAt', `${listed(wrongPass)}: the stored numbers do not match the per-task samples`)
    }
  }
  return problems
}

/** Sorted keys at every level of the two records, so a refreshed baseline diffs cleanly in review. */
function sorted(file: BaselineFile): BaselineFile {
  const benchmarks = Object.fromEntries(
    Object.keys(file.benchmarks)
      .sort()
      .map((b) => [
        b,
        {
          cells: Object.fromEntries(
            Object.keys(file.benchmarks[b]!.cells)
              .sort()
              .map((c) => [c, file.benchmarks[b]!.cells[c]!]),
          ),
        },
      ]),
  )
  return { schema: file.schema, benchmarks }
}

/** Holds a lock directory while `fn` runs: eval files in parallel workers may share one baseline file. */
function withLock<T>(path: string, fn: () => T): T {
  const lock = `${path}.lock`
  const deadline = Date.now() + 10_000
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      if (Date.now() > deadline)
        throw new Error(`${lock}: could not take the baseline lock within 10 s; delete it if no seqk run is writing`)
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20)
    }
  }
  try {
    return fn()
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

/**
 * Writes (or replaces) one cell's baseline, keeping every other cell, atomically and under a lock.
 * `replaceInvalid` (for -u) starts afresh when the file cannot be read, and drops the cells whose
 * numbers do not add up (each is re-recorded when its own cell runs); without it such cells are
 * kept as they are. A cell that would not read back is never written. With `replaces`, the cell of
 * that id (this cell before its subject's id changed) is removed in the same write.
 */
export function writeBaselineCell(
  path: string,
  benchmark: string,
  cellId: string,
  cell: BaselineCellJson,
  options: {
    replaceInvalid?: boolean
    /** Another cell of the benchmark this one replaces (the same cell under its earlier subject's id): removed. */
    replaces?: string
  } = {},
): void {
  const own = baselineCellProblems(benchmark, cellId, cell)
  if (own.length > 0) {
    throw new BaselineFileError(
      path,
      own.map(describeProblem),
      'Not written: this cell would not read back. This is a bug in vitest-seqk (or in the summary handed to it); please report it.',
    )
  }
  mkdirSync(dirname(path), { recursive: true })
  withLock(path, () => {
    const parsed = parseBaseline(path)
    let file: BaselineFile = { schema: BASELINE_SCHEMA, benchmarks: {} }
    if (parsed.kind === 'unreadable') {
      // Refreshing (-u) may replace a file this version cannot read; anything else must not.
      if (!options.replaceInvalid) throw parsed.error
    } else if (parsed.kind === 'read') {
      // The other cells as stored, byte for byte in meaning: parsing would drop fields this version does not know.
      file = parsed.raw
      // Other cells are kept as they are (their own gates report them), unless -u refreshes.
      if (options.replaceInvalid) for (const p of parsed.problems) delete file.benchmarks[p.benchmark]?.cells[p.cell]
    }
    const cells = (file.benchmarks[benchmark] ??= { cells: {} }).cells
    if (options.replaces !== undefined && options.replaces !== cellId) delete cells[options.replaces]
    cells[cellId] = cell
    for (const b of Object.keys(file.benchmarks))
      if (Object.keys(file.benchmarks[b]!.cells).length === 0) delete file.benchmarks[b]
    const tmp = `${path}.${process.pid}.tmp`
    writeFileSync(tmp, `${JSON.stringify(sorted(file), null, 2)}\n`)
    renameSync(tmp, path)
  })
}
