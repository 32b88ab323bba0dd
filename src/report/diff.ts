/**
 * A line diff for the trajectory viewer: what changed between one attempt and the next, by the
 * maintained jsdiff (`diff`) package. Revisions usually keep most lines, so the common head and tail
 * are cut off first and only the part that changed is diffed.
 */
import { diffArrays } from 'diff'

export type DiffOpKind = 'equal' | 'delete' | 'insert'

/** One line of a diff. `a`/`b` are 0-based line numbers in the old/new text (absent for inserted/deleted lines). */
export interface DiffOp {
  op: DiffOpKind
  line: string
  a?: number
  b?: number
}

export interface DiffOptions {
  /**
   * Largest changed part (changed old lines × changed new lines) to diff line by line; beyond it
   * the changed middle is shown as deleted then inserted, which is still a correct (if not minimal)
   * diff. Default 4M, about 2000 × 2000 changed lines.
   */
  maxCells?: number
}

/**
 * Splits text into lines. `\r\n` counts as one line end, and a final line end does not start an
 * extra empty line (so `'a\n'` and `'a'` are both one line).
 *
 * @example
 * splitLines('a\r\nb\n') // => ['a', 'b']
 */
export function splitLines(text: string): string[] {
  if (text === '') return []
  const lines = text.split(/\r?\n/)
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

/**
 * Line diff of `before` → `after` by longest common subsequence: applying the ops (keep `equal`,
 * drop `delete`, add `insert`) to `before` gives `after`, and the number of `equal` lines is the
 * largest possible. Within a changed block deletions come before insertions, as in `diff -u`.
 *
 * @example
 * diffLines('a\nb\nc', 'a\nx\nc').map((d) => d.op)
 * // => ['equal', 'delete', 'insert', 'equal']
 */
export function diffLines(before: string, after: string, options: DiffOptions = {}): DiffOp[] {
  const a = splitLines(before)
  const b = splitLines(after)
  const maxCells = options.maxCells ?? 4_000_000
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++

  const out: DiffOp[] = []
  for (let i = 0; i < head; i++) out.push({ op: 'equal', line: a[i]!, a: i, b: i })
  const n = a.length - head - tail
  const m = b.length - head - tail
  if (n > 0 && m > 0 && (n + 1) * (m + 1) <= maxCells) middleByMyers(a, b, head, n, m, out)
  else {
    for (let i = 0; i < n; i++) out.push({ op: 'delete', line: a[head + i]!, a: head + i })
    for (let j = 0; j < m; j++) out.push({ op: 'insert', line: b[head + j]!, b: head + j })
  }
  for (let t = tail; t > 0; t--) out.push({ op: 'equal', line: a[a.length - t]!, a: a.length - t, b: b.length - t })
  return out
}

/**
 * The changed middle by jsdiff's Myers diff (a shortest edit script, so the most equal lines),
 * each change's deletions before its insertions.
 */
function middleByMyers(
  a: readonly string[],
  b: readonly string[],
  offset: number,
  n: number,
  m: number,
  out: DiffOp[],
): void {
  let i = offset
  let j = offset
  let deleted: DiffOp[] = []
  let inserted: DiffOp[] = []
  const flush = () => {
    out.push(...deleted, ...inserted)
    deleted = []
    inserted = []
  }
  for (const change of diffArrays(a.slice(offset, offset + n), b.slice(offset, offset + m))) {
    for (const line of change.value) {
      if (change.removed) deleted.push({ op: 'delete', line, a: i++ })
      else if (change.added) inserted.push({ op: 'insert', line, b: j++ })
      else {
        flush()
        out.push({ op: 'equal', line, a: i++, b: j++ })
      }
    }
  }
  flush()
}

/**
 * A diff as run lengths, e.g. `'=3-1+2=5'`: the compact form the report embeds. With both texts at
 * hand the viewer rebuilds every line from it, so the page does not carry each line twice.
 *
 * @example
 * encodeDiff(diffLines('a\nb\nc', 'a\nx\nc')) // => '=1-1+1=1'
 */
export function encodeDiff(ops: readonly DiffOp[]): string {
  let out = ''
  let current = ''
  let count = 0
  for (const { op } of ops) {
    const symbol = op === 'equal' ? '=' : op === 'delete' ? '-' : '+'
    if (symbol === current) count++
    else {
      if (count > 0) out += current + String(count)
      current = symbol
      count = 1
    }
  }
  if (count > 0) out += current + String(count)
  return out
}

/**
 * Rebuilds the ops from {@link encodeDiff}'s run lengths and the two texts (what the page's script
 * does; here for tests and for other consumers).
 *
 * @throws Error when the runs do not fit the texts.
 */
export function decodeDiff(runs: string, before: string, after: string): DiffOp[] {
  const a = splitLines(before)
  const b = splitLines(after)
  const out: DiffOp[] = []
  let i = 0
  let j = 0
  for (const [, symbol, digits] of runs.matchAll(/([=+-])(\d+)/g)) {
    for (let c = Number(digits); c > 0; c--) {
      if (symbol === '=') out.push({ op: 'equal', line: a[i]!, a: i++, b: j++ })
      else if (symbol === '-') out.push({ op: 'delete', line: a[i]!, a: i++ })
      else out.push({ op: 'insert', line: b[j]!, b: j++ })
    }
  }
  if (i !== a.length || j !== b.length)
    throw new Error(`diff runs '${runs}' cover ${i}/${a.length} old and ${j}/${b.length} new lines`)
  return out
}

/** Lines added and removed. */
export function diffStats(ops: readonly DiffOp[]): { added: number; removed: number } {
  let added = 0
  let removed = 0
  for (const { op } of ops) {
    if (op === 'insert') added++
    else if (op === 'delete') removed++
  }
  return { added, removed }
}
