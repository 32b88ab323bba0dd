/**
 * The report page's only script: the trajectory viewer, the grid's view switch and click-through,
 * and the attempt tabs. Charts are static SVG and need no script. It builds every node from the
 * JSON data block with `textContent` (through `el`), never `innerHTML`, so model text cannot
 * become markup; ESLint forbids the markup sinks in this folder.
 *
 * Browser code: type-checked with the DOM library by `tsconfig.json` here (the Node program
 * excludes this folder), bundled to one IIFE by `../client.ts`, which `html.ts` inlines.
 */
import type {
  ClientAnnotation,
  ClientAttempt,
  ClientEpisode,
  ClientTrajectory,
  ReportData,
  TextRef,
} from '../client-data.js'
// The one money format of every table and report (metrics/ is plain code, no Node), bundled in.
import { money } from '../../metrics/format.js'

type Attrs = Record<string, string | number | boolean | null | undefined>
type Kid = Node | string | number | null | undefined | false | readonly Kid[]
/** A diff row: class, old line number, new line number, sign, text. */
type Row = ['eq' | 'del' | 'add', number | '', number | '', string, string | undefined]

const dataNode = document.getElementById('seqk-data')
if (dataNode) start(dataNode)

function start(dataNode: HTMLElement): void {
  // Read defensively: a hand-edited or truncated page shows less, not an exception.
  const data = JSON.parse(dataNode.textContent || '{}') as Partial<ReportData>
  const cells = data.cells || []
  const benchmarks = data.benchmarks || []
  const strings = data.strings || []
  const S = (i: TextRef | undefined): string | undefined => (typeof i === 'number' ? strings[i] : i)
  const byKey = new Map<string, ClientTrajectory>()
  const byTask = new Map<string, ClientTrajectory[]>()
  for (const t of data.traj || []) {
    byKey.set(t.c + '\u0000' + t.t + '\u0000' + t.r, t)
    const key = t.c + '\u0000' + t.t
    if (!byTask.has(key)) byTask.set(key, [])
    byTask.get(key)!.push(t)
  }
  byTask.forEach((ts) => ts.sort((x, y) => x.r - y.r))

  function el<K extends keyof HTMLElementTagNameMap>(
    tag: K,
    attrs: Attrs | null,
    ...kids: Kid[]
  ): HTMLElementTagNameMap[K] {
    const node = document.createElement(tag)
    if (attrs)
      Object.keys(attrs).forEach((k) => {
        const v = attrs[k]
        if (v === null || v === undefined || v === false) return
        if (k === 'class') node.className = String(v)
        else if (k === 'style') node.style.cssText = String(v)
        else node.setAttribute(k, v === true ? '' : String(v))
      })
    for (const kid of kids) append(node, kid)
    return node
  }
  function append(node: Element, kid: Kid): void {
    if (kid === null || kid === undefined || kid === false) return
    if (Array.isArray(kid)) (kid as readonly Kid[]).forEach((k) => append(node, k))
    else node.append(kid instanceof Node ? kid : String(kid))
  }
  function lines(text: string | undefined): string[] {
    if (!text) return []
    const out = text.split(/\r?\n/)
    if (out[out.length - 1] === '') out.pop()
    return out
  }
  function codeOf(a: ClientAttempt): string | undefined {
    if (typeof a.x === 'number') return S(a.x)
    if (Array.isArray(a.x)) return S(a.a)?.slice(a.x[0], a.x[1])
    return S(a.a)
  }
  const mark = (t: ClientTrajectory): string => (t.s === 'error' ? '!' : t.f ? '\u2713' + t.f : '\u2717')
  const repeatsOf = (c: number, task: string): ClientTrajectory[] => byTask.get(c + '\u0000' + task) || []

  function diffTable(before: string | undefined, after: string | undefined, runs: string): HTMLTableElement {
    const a = lines(before)
    const b = lines(after)
    const rows: Row[] = []
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
    const body = el('tbody', null)
    let k = 0
    while (k < rows.length) {
      let end = k
      while (end < rows.length && rows[end]![0] === 'eq') end++
      const run = end - k
      // Long unchanged stretches fold to three lines of context on each side.
      if (run > 8) {
        const keepHead = k === 0 ? 0 : 3
        const keepTail = end === rows.length ? 0 : 3
        for (let x = k; x < k + keepHead; x++) body.append(diffRow(rows[x]!))
        const hidden = rows.slice(k + keepHead, end - keepTail).map((r) => {
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
        for (let y = end - keepTail; y < end; y++) body.append(diffRow(rows[y]!))
        k = end
      } else if (run > 0) {
        for (let z = k; z < end; z++) body.append(diffRow(rows[z]!))
        k = end
      } else {
        body.append(diffRow(rows[k]!))
        k++
      }
    }
    return el('table', { class: 'diff' }, body)
  }
  function diffRow(r: Row): HTMLTableRowElement {
    return el(
      'tr',
      { class: r[0] },
      el('td', { class: 'ln' }, r[1]),
      el('td', { class: 'ln' }, r[2]),
      el('td', { class: 'sg' }, r[3]),
      el('td', { class: 'tx' }, r[4] === '' ? '\u200b' : r[4]),
    )
  }

  const CLASS_TEXT: Record<NonNullable<ClientAnnotation['k']>, string> = {
    unhelpful: 'unhelpful revision',
    some: 'addressed some feedback',
    all: 'addressed all feedback',
  }
  // The class as a chip in the attempt's header: what the revision did with the feedback it answered.
  function annotationChip(ann: ClientAnnotation): HTMLElement {
    // Fully satisfied of all requests; partly satisfied ones (LLM annotator) counted apart.
    const partly = ann.part ? ann.part.length : 0
    const text = ann.k
      ? CLASS_TEXT[ann.k] +
        ' (' +
        (ann.sat.length - partly) +
        ' of ' +
        ann.req.length +
        (partly ? ', ' + partly + ' partly' : '') +
        ')'
      : 'annotation failed'
    return el(
      'span',
      {
        class: 'chip revision-class',
        'data-class': ann.k || 'error',
        title: 'judged by ' + ann.by + (ann.smp ? ' (a sampled revision)' : ''),
      },
      text,
    )
  }
  // The requests, one line each: satisfied, partly, not satisfied, or not reported by the verdict.
  function annotationDetail(ann: ClientAnnotation, prev: ClientAttempt | null): Node[] {
    const title =
      'Did it address the feedback' +
      (prev ? ' on attempt ' + prev.i : '') +
      '? (' +
      ann.by +
      (ann.smp ? ', sampled' : '') +
      ')'
    const out: Node[] = [el('h4', null, title)]
    if (ann.err !== undefined) {
      out.push(el('p', { class: 'note' }, 'The annotation failed: ' + (S(ann.err) || '')))
      return out
    }
    out.push(el('p', { class: 'note revision-verdict', 'data-class': ann.k }, ann.k ? CLASS_TEXT[ann.k] : ''))
    out.push(
      el(
        'ul',
        { class: 'requests' },
        ann.req.map((r) => {
          const state =
            ann.un && ann.un.indexOf(r) >= 0
              ? 'not reported by the verdict'
              : ann.part && ann.part.indexOf(r) >= 0
                ? 'partly satisfied'
                : ann.sat.indexOf(r) >= 0
                  ? 'satisfied'
                  : 'not satisfied'
          return el(
            'li',
            { 'data-request': r, 'data-state': state },
            (state === 'satisfied' ? '\u2713 ' : state === 'partly satisfied' ? '\u00bd ' : '\u2717 ') +
              r +
              ': ' +
              state,
          )
        }),
      ),
    )
    if (ann.why !== undefined) out.push(el('p', { class: 'note' }, S(ann.why)))
    return out
  }

  // An agent's attempt as a timeline: each turn's text and cost, then its tool calls with their results or errors.
  function episodeTimeline(ep: ClientEpisode): HTMLElement {
    const calls = ep.t.reduce((n, turn) => n + turn.c.length, 0)
    const turns = ep.t.map((turn, i) =>
      el(
        'li',
        null,
        el(
          'p',
          { class: 'note' },
          'Turn ' +
            (i + 1) +
            ' \u00b7 ' +
            (turn.tok === null ? 'tokens unknown' : turn.tok + ' tokens') +
            (turn.cost === null ? '' : ' \u00b7 ' + money(turn.cost)),
        ),
        ...(S(turn.x) ? [el('pre', null, S(turn.x))] : []),
        ...turn.c.map((c) =>
          el(
            'div',
            { class: 'tool-call ' + (c.er === undefined ? 'pass' : 'fail') },
            el('code', null, c.n + '(' + (S(c.a) ?? '') + ')'),
            el('span', { class: 'note' }, ' ' + c.ms + ' ms'),
            el('pre', null, c.er === undefined ? (S(c.r) ?? '') : 'error: ' + (S(c.er) ?? '')),
          ),
        ),
      ),
    )
    return el(
      'div',
      { class: 'episode' },
      el('h4', null, 'Episode: ' + ep.t.length + ' turns, ' + calls + ' tool calls, ended by ' + ep.e),
      el('ol', null, ...turns),
    )
  }

  function attemptCard(t: ClientTrajectory, a: ClientAttempt, prev: ClientAttempt | null, K: number): HTMLElement {
    const independent = cells[t.c]!.kind === 'independent'
    const cls = 'attempt ' + (a.p ? 'pass' : 'fail')
    const verdict = a.p
      ? '\u2713 passed'
      : a.o === 'load-error'
        ? '\u2717 did not load'
        : a.o === 'timeout'
          ? '\u2717 timed out'
          : a.o === 'no-answer'
            ? '\u2717 no answer'
            : '\u2717 failed'
    const meta = [a.tok === null ? 'tokens unknown' : a.tok + ' tokens']
    if (a.cost !== null && a.cost !== undefined) meta.push(money(a.cost))
    if (a.u === true) meta.push('unmodified revision')
    if (a.fin && a.fin !== 'stop') meta.push('finish: ' + a.fin)
    const header = el(
      'header',
      null,
      el('span', { class: 'num' }, (independent ? 'Sample ' : 'Attempt ') + a.i + ' of ' + K),
      el('span', { class: 'badge ' + (a.p ? 'pass' : 'fail') }, verdict),
      el('span', { class: 'summary' }, S(a.s)),
      el('span', { class: 'meta' }, meta.join(' \u00b7 ')),
      a.ann ? annotationChip(a.ann) : null,
    )

    const panes = el('div', { class: 'panes' })
    const tabs = el('div', { class: 'tabs', role: 'tablist' })
    const views: [name: string, label: string, render: () => Node][] = []
    if (prev && typeof a.d === 'string') {
      const st = a.ds || [0, 0]
      const runs = a.d
      views.push([
        'diff',
        'Diff vs ' + (independent ? 'sample ' : 'attempt ') + prev.i + ' (+' + st[0] + ' \u2212' + st[1] + ')',
        () => diffTable(codeOf(prev), codeOf(a), runs),
      ])
    }
    views.push(['answer', 'Answer', () => el('pre', { class: 'answer' }, S(a.a))])
    if (a.x !== undefined && codeOf(a) !== S(a.a))
      views.push(['code', 'Verified code', () => el('pre', { class: 'answer' }, codeOf(a))])
    const paneList: HTMLElement[] = []
    const buttons: HTMLElement[] = []
    views.forEach(([name, label, render], idx) => {
      const pane = el('div', { class: 'pane pane-' + name, hidden: idx !== 0 })
      pane.append(render())
      panes.append(pane)
      paneList.push(pane)
      const button = el(
        'button',
        { type: 'button', role: 'tab', 'aria-selected': idx === 0 ? 'true' : 'false', 'data-view': name },
        label,
      )
      button.addEventListener('click', () => {
        paneList.forEach((p) => (p.hidden = !p.classList.contains('pane-' + name)))
        buttons.forEach((b) => b.setAttribute('aria-selected', b === button ? 'true' : 'false'))
      })
      tabs.append(button)
      buttons.push(button)
    })

    const side = el('div', { class: 'side' })
    if (a.ann) side.append(...annotationDetail(a.ann, prev))
    if (a.er !== undefined) side.append(el('h4', null, 'Error'), el('pre', { class: 'error' }, S(a.er)))
    if (a.ft && a.ft.length > 0) {
      side.append(el('h4', null, 'Failing tests (' + a.ft.length + (a.n ? ' of ' + a.n : '') + ')'))
      side.append(
        el(
          'table',
          { class: 'tests' },
          el('thead', null, el('tr', null, el('th', null, 'call'), el('th', null, 'expected'), el('th', null, 'got'))),
          el(
            'tbody',
            null,
            a.ft.map((f) =>
              el(
                'tr',
                null,
                el('td', null, el('code', null, S(f.call !== undefined ? f.call : f.src) || '')),
                el('td', null, el('code', null, f.exp === undefined ? '' : S(f.exp))),
                el(
                  'td',
                  null,
                  el('code', null, f.got === undefined ? (f.err === undefined ? '' : S(f.err)) : S(f.got)),
                ),
              ),
            ),
          ),
        ),
      )
      if (a.more) side.append(el('p', { class: 'note' }, a.more + ' more failing tests not shown'))
    } else if (a.n) side.append(el('p', { class: 'note' }, a.p ? 'All ' + a.n + ' tests passed.' : a.n + ' tests'))
    if (a.ep) side.append(episodeTimeline(a.ep))
    if (a.f)
      side.append(
        el('h4', null, 'Feedback sent after this attempt (' + a.f.k + ')'),
        el('pre', { class: 'feedback' }, S(a.f.t)),
      )
    else if (!a.p && cells[t.c]!.kind === 'sequential' && a.i < K)
      side.append(el('p', { class: 'note' }, 'No feedback recorded.'))
    return el(
      'article',
      { class: cls, 'data-attempt': a.i },
      header,
      el('div', { class: 'attempt-body' }, el('div', { class: 'code' }, tabs, panes), side),
    )
  }

  const byId = <T extends HTMLElement>(id: string, type: { new (): T; prototype: T }): T | null => {
    const node = document.getElementById(id)
    return node instanceof type ? node : null
  }
  const cellSel = byId('tv-cell', HTMLSelectElement)
  const taskSel = byId('tv-task', HTMLSelectElement)
  const repSel = byId('tv-repeat', HTMLSelectElement)
  const head = byId('tv-head', HTMLElement)
  const list = byId('tv-attempts', HTMLElement)
  // Opens a cell, task and repeat in the viewer (the grid's click-through uses it too).
  let select: ((c: number, task: string | null | undefined, r: number) => void) | null = null

  if (cellSel && taskSel && repSel && head && list) {
    const fillTasks = (c: number, wanted: string | null | undefined): void => {
      const tasks = benchmarks[cells[c]!.b]!.tasks
      taskSel.replaceChildren(
        ...tasks.map((task) => {
          const marks = repeatsOf(c, task).map(mark).join(' ')
          return el('option', { value: task, selected: task === wanted }, task + (marks ? '  \u2014  ' + marks : ''))
        }),
      )
      if (typeof wanted === 'string' && tasks.indexOf(wanted) >= 0) taskSel.value = wanted
    }

    const fillRepeats = (c: number, task: string, wanted: number): void => {
      const reps = repeatsOf(c, task)
      repSel.replaceChildren(
        ...reps.map((t) => {
          const what =
            t.s === 'error' ? 'infrastructure error' : t.f ? 'solved at attempt ' + t.f : 'not solved in ' + t.a.length
          return el('option', { value: String(t.r) }, 'repeat ' + t.r + ' \u2014 ' + what)
        }),
      )
      if (reps.some((t) => t.r === wanted)) repSel.value = String(wanted)
    }

    const show = (): void => {
      const c = Number(cellSel.value)
      const task = taskSel.value
      const r = Number(repSel.value)
      const t = byKey.get(c + '\u0000' + task + '\u0000' + r)
      const cell = cells[c]!
      head.replaceChildren()
      list.replaceChildren()
      if (!t) {
        const kept = data.kept
        head.append(
          el(
            'p',
            { class: 'note' },
            kept
              ? 'This trajectory is not in the report: it keeps ' +
                  kept.shown +
                  ' of ' +
                  kept.of +
                  ' trajectories (up to ' +
                  Math.round(kept.maxBytes / 1e6) +
                  ' MB, errors and revised ones of every cell first). Every trajectory is in the run\u2019s trajectories.jsonl, and npx seqk view <run dir> pages them.'
              : 'No trajectory recorded for this task and repeat.',
          ),
        )
        return
      }
      const status =
        t.s === 'error' ? 'infrastructure error' : t.f ? 'solved at attempt ' + t.f : 'not solved within K = ' + cell.K
      head.append(
        el(
          'div',
          { class: 'tv-title' },
          el('span', { class: 'swatch', style: 'background:' + cell.colour }),
          el('strong', null, cell.id),
          // Two benchmarks may have cells of the same id: the title names the benchmark too.
          el('span', { class: 'bench' }, benchmarks[cell.b] ? '\u00b7 ' + benchmarks[cell.b]!.name : ''),
          ' \u203a ',
          el('code', null, t.t),
          ' \u203a repeat ' + t.r,
          el('span', { class: 'badge ' + (t.s === 'solved' ? 'pass' : 'fail') }, status),
        ),
        el(
          'div',
          { class: 'chips' },
          cell.proto.map((p) => el('span', { class: 'chip' + (p.indexOf('fp ') === 0 ? ' fp' : '') }, p)),
        ),
        el(
          'div',
          { class: 'pills' },
          t.a.map((a) =>
            el('a', { class: 'pill ' + (a.p ? 'pass' : 'fail'), href: '#tv-attempt-' + a.i }, String(a.i)),
          ),
        ),
      )
      if (t.e !== null && t.e !== undefined) head.append(el('pre', { class: 'error' }, S(t.e)))
      t.a.forEach((a, i) => {
        const card = attemptCard(t, a, i > 0 ? t.a[i - 1]! : null, cell.K)
        card.id = 'tv-attempt-' + a.i
        list.append(card)
      })
    }

    const open = (c: number, task: string | null | undefined, r: number): void => {
      cellSel.value = String(c)
      fillTasks(c, task)
      fillRepeats(c, taskSel.value, r)
      show()
    }
    select = open

    cellSel.addEventListener('change', () => open(Number(cellSel.value), taskSel.value, Number(repSel.value)))
    taskSel.addEventListener('change', () => {
      fillRepeats(Number(cellSel.value), taskSel.value, Number(repSel.value))
      show()
    })
    repSel.addEventListener('change', show)
    const first = data.start || { c: 0, t: benchmarks[0]?.tasks[0], r: 0 }
    if (cells.length > 0) open(first.c, first.t, first.r)
  }

  // Grid: a click on a task × cell square opens that trajectory in the viewer.
  document.addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target.closest('[data-gc]') : null
    if (!target || !select) return
    const rep = target.closest('[data-r]')
    select(
      Number(target.getAttribute('data-gc')),
      target.getAttribute('data-t'),
      rep ? Number(rep.getAttribute('data-r')) : 0,
    )
    const viewer = document.getElementById('trajectories')
    if (viewer) viewer.scrollIntoView({ behavior: 'smooth', block: 'start' })
  })
  document.addEventListener('keydown', (event) => {
    if (
      (event.key === 'Enter' || event.key === ' ') &&
      event.target instanceof HTMLElement &&
      event.target.hasAttribute('data-gc')
    ) {
      event.preventDefault()
      event.target.click()
    }
  })
  // Grid: repeat-averaged or per-repeat squares.
  document.querySelectorAll<HTMLInputElement>('[data-grid-view]').forEach((input) => {
    input.addEventListener('change', () => {
      const grid = document.getElementById(input.getAttribute('data-grid-view') ?? '')
      if (grid && input.checked) grid.setAttribute('data-view', input.value)
    })
  })
}
