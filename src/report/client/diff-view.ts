/**
 * The line diff between two attempts' code, from the compact run list the report stores
 * (`=3-1+2`: three lines kept, one removed, two added); long unchanged stretches fold.
 */
import { el } from './dom.js'

/** A diff row: class, old line number, new line number, sign, text. */
type DiffRow = ['eq' | 'del' | 'add', number | '', number | '', string, string | undefined]

/** Unchanged stretches longer than this fold, keeping three lines of context on each side. */
const FOLD_AFTER = 8
const CONTEXT = 3

/** A text's lines, without the empty one after a final newline. */
function lines(text: string | undefined): string[] {
  if (!text) return []
  const out = text.split(/\r?\n/)
  if (out[out.length - 1] === '') out.pop()
  return out
}

/** The rows of the diff the run list `runs` describes between `before` and `after`. */
function diffRows(before: string | undefined, after: string | undefined, runs: string): DiffRow[] {
  const a = lines(before)
  const b = lines(after)
  const rows: DiffRow[] = []
  let i = 0
  let j = 0
  for (const m of runs.matchAll(/([=+-])(\d+)/g)) {
    for (let n = Number(m[2]); n > 0; n--) {
      if (m[1] === '=') {
        rows.push(['eq', i + 1, j + 1, ' ', a[i]])
        i++
        j++
      } else if (m[1] === '-') rows.push(['del', i + 1, '', '\u2212', a[i++]])
      else rows.push(['add', '', j + 1, '+', b[j++]])
    }
  }
  return rows
}

function diffRow(r: DiffRow): HTMLTableRowElement {
  return el(
    'tr',
    { class: r[0] },
    el('td', { class: 'ln' }, r[1]),
    el('td', { class: 'ln' }, r[2]),
    el('td', { class: 'sg' }, r[3]),
    el('td', { class: 'tx' }, r[4] === '' ? '\u200b' : r[4]),
  )
}

/** An unchanged stretch of `rows`, folded behind a button that shows it; context kept where it borders changes. */
function foldedStretch(body: HTMLElement, rows: readonly DiffRow[], atStart: boolean, atEnd: boolean): void {
  const keepHead = atStart ? 0 : CONTEXT
  const keepTail = atEnd ? 0 : CONTEXT
  for (const row of rows.slice(0, keepHead)) body.append(diffRow(row))
  const hidden = rows.slice(keepHead, rows.length - keepTail).map((r) => {
    const tr = diffRow(r)
    tr.hidden = true
    return tr
  })
  const button = el('button', { type: 'button' }, '\u22ef ' + hidden.length + ' unchanged lines')
  const fold = el('tr', { class: 'fold' }, el('td', { colspan: '4' }, button))
  button.addEventListener('click', () => {
    hidden.forEach((h) => (h.hidden = false))
    fold.remove()
  })
  body.append(fold)
  hidden.forEach((h) => body.append(h))
  for (const row of rows.slice(rows.length - keepTail)) body.append(diffRow(row))
}

/**
 * The diff table of `before` → `after` as `runs` describes it.
 *
 * @example
 * diffTable('a\nb\n', 'a\nc\n', '=1-1+1') // a kept, b removed, c added
 */
export function diffTable(before: string | undefined, after: string | undefined, runs: string): HTMLTableElement {
  const rows = diffRows(before, after, runs)
  const body = el('tbody', null)
  let k = 0
  while (k < rows.length) {
    let end = k
    while (end < rows.length && rows[end]![0] === 'eq') end++
    if (end - k > FOLD_AFTER) foldedStretch(body, rows.slice(k, end), k === 0, end === rows.length)
    else if (end > k) for (const row of rows.slice(k, end)) body.append(diffRow(row))
    else body.append(diffRow(rows[end++]!))
    k = end
  }
  return el('table', { class: 'diff' }, body)
}
