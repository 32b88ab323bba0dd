/**
 * Vitest's `--shard=i/N` splits a run by test file. With fewer eval files than shards it fails
 * before any test runs (and after `--merge-reports` all that is left is
 * `{ type: 'Unhandled Error', stacks: [] }`); with `--passWithNoTests` a shard quietly runs
 * nothing. Task-level sharding (`SEQK_SHARD=i/N`) is what spreads one eval file over N machines:
 * these messages say so where Vitest's own words do not.
 */

/** Vitest's message for `--shard` with more shards than files (vitest 4's wording). */
const TOO_FEW_FILES =
  /--shard <count> must be a smaller than count of test files\. Resolved (\d+) test files? for --shard=(\d+)\/(\d+)/

/** How to spread one benchmark over N machines: said by every hint below. */
function useTaskShards(count?: number): string {
  const n = count === undefined ? 'N' : String(count)
  return `To spread an eval file's tasks over ${n} machines, use task-level shards instead: run every file on each machine with SEQK_SHARD=i/${n} (i = 1..${n}), then join the run directories with npx seqk merge <dirs…> --out <dir>.`
}

/** What the reporter knows of a finished run that bears on file sharding. */
export interface FileShardRun {
  /** Vitest's `--shard`, when one was given. */
  readonly shard?: { index: number; count: number }
  /** True for `vitest --merge-reports`. */
  readonly merging: boolean
  /** How many test files ran (Vitest's test modules). */
  readonly files: number
  /** Vitest's unhandled errors of the run. */
  readonly errors: readonly { message?: string; type?: string }[]
}

/**
 * A message naming the file-sharding mistake behind a run, or undefined when there is none.
 *
 * @example
 * fileShardHint({ shard: { index: 1, count: 4 }, merging: false, files: 1, errors: [{ message: '--shard <count> must be a smaller than count of test files. Resolved 1 test files for --shard=1/4.' }] })
 * // => 'seqk: Vitest's --shard=1/4 splits the run by file, and it has 1 eval file for 4 shards: … use task-level shards instead: …'
 */
export function fileShardHint(run: FileShardRun): string | undefined {
  for (const error of run.errors) {
    const m = TOO_FEW_FILES.exec(error.message ?? '')
    if (!m) continue
    const [files, index, count] = [Number(m[1]), Number(m[2]), Number(m[3])]
    return `seqk: Vitest's --shard=${index}/${count} splits the run by file, and it has ${files} eval ${files === 1 ? 'file' : 'files'} for ${count} shards, so Vitest stopped before any test ran. ${useTaskShards(count)}`
  }
  if (run.shard && run.files === 0 && !run.merging) {
    return `seqk: Vitest's --shard=${run.shard.index}/${run.shard.count} gave this machine no eval file (Vitest shards by file, and there are fewer files than shards), so it measured nothing. ${useTaskShards(run.shard.count)}`
  }
  // The blob reporter keeps neither the message nor the stack of such an error: name the known cause.
  const bare = run.errors.filter((e) => !e.message && e.type === 'Unhandled Error')
  if (run.merging && bare.length > 0) {
    return `seqk: ${bare.length} of the merged ${bare.length === 1 ? 'blob carries an error' : 'blobs carry errors'} without a message ({ type: 'Unhandled Error', stacks: [] }). A known cause: those machines ran Vitest's --shard=i/N with more shards than eval files, which stops before any test runs. ${useTaskShards()}`
  }
  return undefined
}
