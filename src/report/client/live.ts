/**
 * The live view's script (`seqk view`): reads the server's event stream and shows, per cell,
 * progress n/m and how its trajectories ended, errors as they happen and the latest trajectories,
 * then that the run ended with a link to its report. Every node is built with `textContent`
 * (through `el`), never markup, so error messages and ids cannot become markup.
 *
 * Browser code, checked by `tsconfig.json` here and bundled by `../client.ts` (`liveScript`).
 */
import type { BatchEvent, CellEndEvent, CellProgress, CellStartEvent, LiveEvent, MalformedEvent, TrajectoryEvent } from '../live/events.js'

type Kid = Node | string | number | null | undefined | false

/** How many errors, trajectories and malformed lines the page keeps (newest first). */
const KEEP = { errors: 50, trajectories: 30, malformed: 20 }

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> | null, ...kids: Kid[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  if (attrs) for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v)
  for (const kid of kids) if (kid !== null && kid !== undefined && kid !== false) node.append(kid instanceof Node ? kid : String(kid))
  return node
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`
const clock = (): string => new Date().toLocaleTimeString()

interface CellRow {
  row: HTMLTableRowElement
  progress: HTMLTableCellElement
  solved: HTMLTableCellElement
  failed: HTMLTableCellElement
  errored: HTMLTableCellElement
  state: HTMLTableCellElement
  ended: boolean
}

const root = document.getElementById('live')
if (root) start(root)

function start(root: HTMLElement): void {
  const badge = document.getElementById('live-state')
  const runLine = document.getElementById('live-run')
  let cells = new Map<string, CellRow>()
  const progressOf = new Map<string, CellProgress>()
  let ended = false
  let runId: string | null = null

  // The page's parts, rebuilt for each run.
  const endedBox = el('div', { class: 'callout live-ended', id: 'live-ended', hidden: '' })
  const body = el('tbody', { id: 'live-cells' })
  const table = el(
    'table',
    { class: 'live' },
    el('thead', null, el('tr', null, el('th', null, 'benchmark'), el('th', null, 'cell'), el('th', null, 'progress'), el('th', { class: 'num' }, 'solved'), el('th', { class: 'num' }, 'failed'), el('th', { class: 'num' }, 'errors'), el('th', null, 'state'))),
    body,
  )
  const noCells = el('p', { class: 'empty' }, 'No cell has started yet.')
  const errors = el('ul', { class: 'live-list', id: 'live-errors' })
  const noErrors = el('p', { class: 'empty' }, 'No errors so far.')
  const trajectories = el('ul', { class: 'live-list', id: 'live-trajectories' })
  const noTrajectories = el('p', { class: 'empty' }, 'No trajectory has finished yet.')
  const batchList = el('ul', { class: 'live-list', id: 'live-batches' })
  const batchRows = new Map<string, HTMLLIElement>()
  const batchSection = el('section', { class: 'bench', hidden: '' }, el('h2', null, 'Batches'), el('p', { class: 'lede' }, "The provider batches a batched actor's calls went in: a round of a cell each."), el('div', { class: 'card' }, batchList))
  const malformed = el('ul', { class: 'live-list', id: 'live-malformed' })
  const malformedSection = el('section', { class: 'bench', hidden: '' }, el('h2', null, 'Malformed lines'), el('p', { class: 'lede' }, 'Lines of the run files that are not valid records; they are skipped.'), el('div', { class: 'card' }, malformed))
  root.append(
    endedBox,
    el('section', { class: 'bench' }, el('h2', null, 'Cells'), el('div', { class: 'card' }, noCells, table)),
    el('section', { class: 'bench' }, el('h2', null, 'Errors'), el('p', { class: 'lede' }, 'Infrastructure errors (the model, verifier or critic failed), as they happen.'), el('div', { class: 'card' }, noErrors, errors)),
    el('section', { class: 'bench' }, el('h2', null, 'Latest trajectories'), el('div', { class: 'card' }, noTrajectories, trajectories)),
    batchSection,
    malformedSection,
  )

  function setBadge(text: string, kind: string): void {
    if (!badge) return
    badge.textContent = text
    badge.className = `badge live-state ${kind}`
  }
  function prepend(list: HTMLUListElement, item: HTMLLIElement, keep: number, empty: HTMLElement | null): void {
    list.prepend(item)
    while (list.children.length > keep) list.lastElementChild!.remove()
    if (empty) empty.hidden = true
  }
  function status(): void {
    let done = 0
    let total = 0
    let known = true
    cells.forEach((_, key) => {
      const p = progressOf.get(key)
      if (!p) return
      done += p.done
      if (p.total === null) known = false
      else total += p.total
    })
    if (runId === null) setBadge('waiting for a run', 'waiting')
    else if (ended) setBadge('run ended', 'pass')
    else setBadge(`running · ${done}${known && total > 0 ? ` of ${total}` : ''} trajectories`, 'running')
  }
  function row(key: string, benchmark: string, cellId: string): CellRow {
    let r = cells.get(key)
    if (r) return r
    const cell = (cls?: string) => el('td', cls ? { class: cls } : null)
    r = { row: el('tr', { 'data-cell': cellId }), progress: cell('progress'), solved: cell('num solved'), failed: cell('num failed'), errored: cell('num errored'), state: cell('state'), ended: false }
    r.row.append(el('td', null, benchmark), el('td', null, cellId), r.progress, r.solved, r.failed, r.errored, r.state)
    r.state.textContent = 'running'
    body.append(r.row)
    noCells.hidden = true
    table.hidden = false
    cells.set(key, r)
    return r
  }
  function show(key: string, r: CellRow, p: CellProgress): void {
    progressOf.set(key, p)
    const bar = el('progress', { max: String(p.total ?? Math.max(p.done, 1)), value: String(p.done) })
    r.progress.replaceChildren(bar, el('span', { class: 'count' }, p.total === null ? `${p.done}` : `${p.done}/${p.total}`))
    r.solved.textContent = String(p.solved)
    r.failed.textContent = String(p.failed)
    r.errored.textContent = String(p.errored)
  }

  function onRun(id: string | null, dir: string): void {
    runId = id
    ended = false
    cells = new Map()
    progressOf.clear()
    body.replaceChildren()
    errors.replaceChildren()
    trajectories.replaceChildren()
    malformed.replaceChildren()
    batchList.replaceChildren()
    batchRows.clear()
    batchSection.hidden = true
    endedBox.replaceChildren()
    endedBox.hidden = true
    malformedSection.hidden = true
    noCells.hidden = false
    table.hidden = true
    noErrors.hidden = false
    noTrajectories.hidden = false
    if (runLine) runLine.textContent = id === null ? `waiting for a run in ${dir}` : `run ${id} · ${dir}`
    document.title = id === null ? 'seqk live' : `seqk live · ${id}`
    status()
  }
  function onCellStart(e: CellStartEvent): void {
    const r = row(e.cell, e.benchmark, e.cellId)
    r.ended = false
    r.state.textContent = 'running'
    show(e.cell, r, e.progress)
  }
  function onCellEnd(e: CellEndEvent): void {
    const r = cells.get(e.cell)
    if (!r) return
    r.ended = true
    r.state.textContent = e.unfinished === null ? `ended in ${(e.durationMs / 1000).toFixed(1)} s` : `unfinished: ${e.unfinished}`
  }
  function onTrajectory(e: TrajectoryEvent): void {
    const r = row(e.cell, e.benchmark, e.cellId)
    show(e.cell, r, e.progress)
    const where = `${e.benchmark} › ${e.cellId} › ${e.taskId} #${e.repeat + 1}`
    const outcome = e.status === 'solved' ? `solved at attempt ${e.firstSuccess ?? e.attempts}` : e.status === 'failed' ? `failed after ${plural(e.attempts, 'attempt')}` : 'error'
    prepend(trajectories, el('li', { 'data-status': e.status }, el('span', { class: `st ${e.status}` }, outcome), ' · ', where, e.status !== 'error' && e.summary ? ` · ${e.summary}` : '', el('span', { class: 'muted' }, ` · ${clock()}`)), KEEP.trajectories, noTrajectories)
    if (e.error) {
      prepend(errors, el('li', null, `${where} · ${e.error.stage} failed at attempt ${e.error.attempt} · ${clock()}`, el('span', { class: 'live-error-message' }, e.error.message)), KEEP.errors, noErrors)
    }
  }
  function onBatch(e: BatchEvent): void {
    batchSection.hidden = false
    const status = e.status === 'in_progress' ? `in progress ${e.done}/${e.total}` : e.status === 'finalizing' ? 'finalising' : e.status === 'submitted' ? `submitted, ${plural(e.total, 'request')}` : e.status
    const item = el('li', { 'data-batch': e.batchId, 'data-status': e.status }, el('span', { class: `st ${e.status === 'ended' ? 'solved' : 'running'}` }, status), ` · ${e.provider} batch ${e.batchId}`, el('span', { class: 'muted' }, ` · ${clock()}`))
    const old = batchRows.get(e.batchId)
    if (old) old.replaceWith(item)
    else batchList.append(item)
    batchRows.set(e.batchId, item)
  }
  function onMalformed(e: MalformedEvent): void {
    malformedSection.hidden = false
    prepend(malformed, el('li', null, `${e.file}:${e.line}: `, el('span', { class: 'live-error-message' }, e.message)), KEEP.malformed, null)
  }
  function onEnded(report: boolean): void {
    ended = true
    endedBox.hidden = false
    endedBox.replaceChildren(
      el('p', null, el('strong', null, 'The run ended.'), report ? ' Its report is ready: ' : ' It wrote its summary; the report follows when the run writes it.', report ? el('a', { href: '/report', id: 'live-report-link' }, 'open the report') : null),
    )
    status()
  }

  const source = new EventSource('/events')
  source.onmessage = (message) => {
    let event: LiveEvent
    try {
      event = JSON.parse(String(message.data)) as LiveEvent
    } catch {
      return
    }
    if (event.type === 'run') onRun(event.runId, event.dir)
    else if (event.type === 'cell-start') onCellStart(event)
    else if (event.type === 'cell-end') onCellEnd(event)
    else if (event.type === 'trajectory') onTrajectory(event)
    else if (event.type === 'batch') onBatch(event)
    else if (event.type === 'malformed') onMalformed(event)
    else if (event.type === 'ended') onEnded(event.report)
    status()
  }
  // The browser reconnects on its own (sending the last event id); say so meanwhile.
  source.onerror = () => {
    if (source.readyState !== EventSource.OPEN) setBadge(ended ? 'run ended · server stopped' : 'disconnected · retrying', 'offline')
  }
}
