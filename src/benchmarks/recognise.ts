/**
 * Which known benchmark a file holds, from the shape of its records and their ids, so a loader
 * handed another benchmark's file (the HumanEval Pro file to `loadMbppPro`, a HealthBench file to
 * `loadClBench`) says which file it is and which loader reads it, instead of failing on the first
 * field it does not find.
 */

/** Benchmarks whose files we recognise: the ones we load, and the originals people confuse them with. */
export type KnownBenchmark =
  'humaneval-pro' | 'mbpp-pro' | 'healthbench' | 'advancedif' | 'clbench' | 'humaneval' | 'mbpp'

const KNOWN: Record<KnownBenchmark, { name: string; use: string }> = {
  'humaneval-pro': { name: 'HumanEval Pro', use: 'use loadHumanEvalPro' },
  'mbpp-pro': { name: 'MBPP Pro', use: 'use loadMbppPro' },
  healthbench: { name: 'HealthBench', use: 'use loadHealthBench' },
  advancedif: { name: 'AdvancedIF', use: 'use loadAdvancedIf' },
  clbench: { name: 'CL-bench', use: 'use loadClBench' },
  humaneval: {
    name: 'original HumanEval (or HumanEval+)',
    use: 'vitest-seqk has no loader for it; loadHumanEvalPro reads HumanEval Pro, the self-invoking benchmark (dataset/humaneval_pro.json of github.com/CodeEval-Pro/CodeEval-Pro)',
  },
  mbpp: {
    name: 'original MBPP (or MBPP+)',
    use: 'vitest-seqk has no loader for it; loadMbppPro reads MBPP Pro, the self-invoking benchmark (dataset/mbpp_pro.json of github.com/CodeEval-Pro/CodeEval-Pro)',
  },
}

/** What a record looks like, and why we think so. */
export interface Recognised {
  benchmark: KnownBenchmark
  /** The evidence, for the message: `ids like "HumanEval/0"`. */
  because: string
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
const has = (r: Record<string, unknown>, ...keys: string[]) => keys.every((k) => Object.hasOwn(r, k))
const DOCSTRING = /"""|'''/

/**
 * The known benchmark one raw record (a parsed JSON object, or a CSV header's field names as
 * keys) belongs to, or undefined when it looks like none of them (or like several).
 *
 * @example
 * recogniseRecord({ id: 'Mbpp/2', raw_problem: '…', new_problem: '…', test_code: '…' }) // { benchmark: 'mbpp-pro', because: 'ids like "Mbpp/2"' }
 */
export function recogniseRecord(record: unknown): Recognised | undefined {
  if (!isObject(record)) return undefined
  // CodeEval-Pro: both files share one shape; the id prefix (when ids are strings) or the base
  // problem's style tells them apart: HumanEval's have a docstring, MBPP's a `# Write a …` comment.
  if (has(record, 'raw_problem', 'new_problem')) {
    const id = record.id
    if (typeof id === 'string') {
      if (/^humaneval(?:[-_ ]?pro)?\//i.test(id))
        return { benchmark: 'humaneval-pro', because: `ids like ${JSON.stringify(id)}` }
      if (/^mbpp(?:[-_ ]?pro)?\//i.test(id)) return { benchmark: 'mbpp-pro', because: `ids like ${JSON.stringify(id)}` }
    }
    const base = record.raw_problem
    if (typeof base !== 'string') return undefined
    if (DOCSTRING.test(base))
      return { benchmark: 'humaneval-pro', because: 'base problems (raw_problem) with a docstring, as HumanEval has' }
    if (/^\s*#/.test(base))
      return {
        benchmark: 'mbpp-pro',
        because:
          'base problems (raw_problem) that are a "# Write a function …" comment over a bare signature, as MBPP has',
      }
    return undefined
  }
  const taskId = record.task_id
  if (typeof taskId === 'string' && /^humaneval\//i.test(taskId))
    return { benchmark: 'humaneval', because: `task ids like ${JSON.stringify(taskId)}` }
  if (typeof taskId === 'string' && /^mbpp\//i.test(taskId))
    return { benchmark: 'mbpp', because: `task ids like ${JSON.stringify(taskId)}` }
  if (has(record, 'task_id', 'text', 'code', 'test_list'))
    return { benchmark: 'mbpp', because: 'records with task_id, text, code and test_list' }
  if (has(record, 'task_id', 'prompt', 'canonical_solution', 'test', 'entry_point'))
    return { benchmark: 'humaneval', because: 'records with task_id, prompt, canonical_solution, test and entry_point' }
  if (has(record, 'conversation_history') && (has(record, 'prompt_metadata') || has(record, 'benchmark_name'))) {
    return { benchmark: 'advancedif', because: 'records with conversation_history, prompt_metadata and benchmark_name' }
  }
  const rubrics = record.rubrics
  if (has(record, 'prompt_id', 'prompt') && Array.isArray(rubrics) && (rubrics.length === 0 || isObject(rubrics[0]))) {
    return { benchmark: 'healthbench', because: 'records with prompt_id and rubrics of { criterion, points }' }
  }
  if (
    has(record, 'messages') &&
    isObject(record.metadata) &&
    Object.hasOwn(record.metadata, 'task_id') &&
    Array.isArray(rubrics) &&
    (rubrics.length === 0 || typeof rubrics[0] === 'string')
  ) {
    return {
      benchmark: 'clbench',
      because: 'records with messages, rubrics (a list of requirements) and metadata.task_id',
    }
  }
  return undefined
}

/**
 * The known benchmark most of `records` belong to (more than half of the first 50), or undefined.
 */
export function recogniseRecords(records: readonly unknown[]): Recognised | undefined {
  const sample = records.slice(0, 50)
  const votes = new Map<KnownBenchmark, { count: number; first: Recognised }>()
  for (const r of sample) {
    const seen = recogniseRecord(r)
    if (!seen) continue
    const vote = votes.get(seen.benchmark) ?? { count: 0, first: seen }
    vote.count++
    votes.set(seen.benchmark, vote)
  }
  const best = [...votes.values()].sort((a, b) => b.count - a.count)[0]
  return best && best.count * 2 > sample.length ? best.first : undefined
}

/**
 * The records of a file's text as far as cheaply readable, for recognition only: a JSON array's
 * items, the JSON objects on the first lines of JSON Lines, or a CSV header's field names (as keys).
 */
export function sniffRecords(text: string): unknown[] {
  const trimmed = text.replace(/^\uFEFF/, '').trimStart()
  if (trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed)
      return Array.isArray(parsed) ? parsed : []
    } catch {
      return []
    }
  }
  const lines = trimmed
    .split('\n', 51)
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .slice(0, 50)
  if (lines[0]?.startsWith('{')) {
    const out: unknown[] = []
    for (const line of lines) {
      try {
        out.push(JSON.parse(line))
      } catch {
        // A torn or malformed line: recognition uses the others.
      }
    }
    return out
  }
  // A CSV header: its names are what the records would have as keys.
  const header = lines[0]
  if (header && header.includes(',') && !header.includes('{'))
    return [Object.fromEntries(header.split(',').map((name) => [name.trim().replace(/^"|"$/g, ''), ''] as const))]
  return []
}

/**
 * Throws `error(message)` when `records` look like another known benchmark's than `expected`:
 * the message names the file (`where`), the benchmark it looks like, why, and the loader to use.
 *
 * @example
 * refuseOtherBenchmark(records, 'mbpp-pro', 'loadMbppPro("humaneval_pro.json")', (m) => new CodeEvalProFileError(m))
 * // loadMbppPro("humaneval_pro.json"): this looks like the HumanEval Pro file (base problems (raw_problem) with a docstring, as HumanEval has), not MBPP Pro; use loadHumanEvalPro
 */
export function refuseOtherBenchmark(
  records: readonly unknown[],
  expected: KnownBenchmark,
  where: string,
  error: (message: string) => Error,
): void {
  const seen = recogniseRecords(records)
  if (!seen || seen.benchmark === expected) return
  throw error(
    `${where}: this looks like the ${KNOWN[seen.benchmark].name} file (${seen.because}), not ${KNOWN[expected].name}; ${KNOWN[seen.benchmark].use}`,
  )
}

/**
 * Runs `parse` (a loader reading `text` as `expected`); when it throws, and the text looks like
 * another known benchmark's file, throws that instead (see {@link refuseOtherBenchmark}). A file
 * of the right benchmark costs nothing extra: recognition runs only after a failure.
 */
export function recognisingFailures<T>(
  text: string,
  expected: KnownBenchmark,
  where: string,
  error: (message: string) => Error,
  parse: () => T,
): T {
  try {
    return parse()
  } catch (failure) {
    refuseOtherBenchmark(sniffRecords(text), expected, where, error)
    throw failure
  }
}
