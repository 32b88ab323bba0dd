/**
 * The report page's only script: the trajectory viewer, the grid's view switch and click-through,
 * and the attempt tabs. Charts are static SVG and need no script. It builds every node from the
 * JSON data block with `textContent` (through `el`, ./dom.ts), never `innerHTML`, so model text
 * cannot become markup; ESLint forbids the markup sinks in this folder. An attempt's card is
 * ./attempt-card.ts, its diff ./diff-view.ts.
 *
 * Browser code: type-checked with the DOM library by `tsconfig.json` here (the Node program
 * excludes this folder), bundled to one IIFE by `../client.ts`, which `html.ts` inlines.
 */
import type { ClientTrajectory, ReportData, TextRef } from '../client-data.js'
import { attemptCard, type CardContext } from './attempt-card.js'
import { el } from './dom.js'

/** The page's data, read defensively: a hand-edited or truncated page shows less, not an exception. */
interface Report extends CardContext {
  readonly data: Partial<ReportData>
  readonly benchmarks: ReportData['benchmarks']
  /** A trajectory by cell, task and repeat. */
  readonly trajectory: (cell: number, task: string, repeat: number) => ClientTrajectory | undefined
  /** A task's trajectories in a cell, by repeat. */
  readonly repeatsOf: (cell: number, task: string) => ClientTrajectory[]
}

/** Opens a cell, task and repeat in the viewer (the grid's click-through uses it too). */
type Open = (cell: number, task: string | null | undefined, repeat: number) => void

function start(dataNode: HTMLElement): void {
  const report = readReport(dataNode)
  const open = trajectoryViewer(report)
  wireGrid(open)
}

function readReport(dataNode: HTMLElement): Report {
  const data = JSON.parse(dataNode.textContent || '{}') as Partial<ReportData>
  const strings = data.strings || []
  const key = (cell: number, task: string) => cell + '\u0000' + task
  const byKey = new Map<string, ClientTrajectory>()
  const byTask = new Map<string, ClientTrajectory[]>()
  for (const trajectory of data.traj || []) {
    const { c: cell, t: task, r: repeat } = trajectory
    byKey.set(key(cell, task) + '\u0000' + repeat, trajectory)
    if (!byTask.has(key(cell, task))) byTask.set(key(cell, task), [])
    byTask.get(key(cell, task))!.push(trajectory)
  }
  byTask.forEach((repeats) => repeats.sort((x, y) => x.r - y.r))
  return {
    data,
    cells: data.cells || [],
    benchmarks: data.benchmarks || [],
    text: (ref: TextRef | undefined) => (typeof ref === 'number' ? strings[ref] : ref),
    trajectory: (cell, task, repeat) => byKey.get(key(cell, task) + '\u0000' + repeat),
    repeatsOf: (cell, task) => byTask.get(key(cell, task)) || [],
  }
}

/** A trajectory's mark in the task list: ✓ and its first passing attempt, ✗, or ! for an error. */
const mark = (trajectory: ClientTrajectory): string =>
  trajectory.s === 'error' ? '!' : trajectory.f ? '\u2713' + trajectory.f : '\u2717'

/** What became of a trajectory, in words. */
function outcomeText(trajectory: ClientTrajectory, notSolved: string): string {
  if (trajectory.s === 'error') return 'infrastructure error'
  return trajectory.f ? 'solved at attempt ' + trajectory.f : notSolved
}

function byId<T extends HTMLElement>(id: string, type: { new (): T; prototype: T }): T | null {
  const node = document.getElementById(id)
  return node instanceof type ? node : null
}

/** Why no trajectory is shown: the page keeps only some, or none was recorded. */
function missingNote(report: Report): HTMLElement {
  const kept = report.data.kept
  return el(
    'p',
    { class: 'note' },
    kept
      ? 'This trajectory is not in the report: it keeps ' +
          kept.shown +
          ' of ' +
          kept.of +
          ' trajectories (up to ' +
          Math.round(kept.maxBytes / 1e6) +
          ' MB, errors and revised ones of every cell first). Every trajectory is in the run\u2019s ' +
          'trajectories.jsonl, and npx seqk view <run dir> pages them.'
      : 'No trajectory recorded for this task and repeat.',
  )
}

/** The viewer's title: cell, benchmark, task, repeat and outcome; the protocol's chips; a pill per attempt. */
function trajectoryHeading(report: Report, trajectory: ClientTrajectory): Node[] {
  const cell = report.cells[trajectory.c]!
  const benchmark = report.benchmarks[cell.b]
  return [
    el(
      'div',
      { class: 'tv-title' },
      el('span', { class: 'swatch', style: 'background:' + cell.colour }),
      el('strong', null, cell.id),
      // Two benchmarks may have cells of the same id: the title names the benchmark too.
      el('span', { class: 'bench' }, benchmark ? '\u00b7 ' + benchmark.name : ''),
      ' \u203a ',
      el('code', null, trajectory.t),
      ' \u203a repeat ' + trajectory.r,
      el(
        'span',
        { class: 'badge ' + (trajectory.s === 'solved' ? 'pass' : 'fail') },
        outcomeText(trajectory, 'not solved within K = ' + cell.K),
      ),
    ),
    el(
      'div',
      { class: 'chips' },
      cell.proto.map((p) => el('span', { class: 'chip' + (p.indexOf('fp ') === 0 ? ' fp' : '') }, p)),
    ),
    el(
      'div',
      { class: 'pills' },
      trajectory.a.map((a) =>
        el('a', { class: 'pill ' + (a.p ? 'pass' : 'fail'), href: '#tv-attempt-' + a.i }, String(a.i)),
      ),
    ),
  ]
}

/**
 * The trajectory viewer: the cell, task and repeat selects and what they show. Returns how to open
 * a trajectory in it, or null when the page has no viewer.
 */
function trajectoryViewer(report: Report): Open | null {
  const cellSelect = byId('tv-cell', HTMLSelectElement)
  const taskSelect = byId('tv-task', HTMLSelectElement)
  const repeatSelect = byId('tv-repeat', HTMLSelectElement)
  const head = byId('tv-head', HTMLElement)
  const list = byId('tv-attempts', HTMLElement)
  if (!cellSelect || !taskSelect || !repeatSelect || !head || !list) return null
  const { cells, benchmarks } = report

  const fillTasks = (cell: number, wanted: string | null | undefined): void => {
    const tasks = benchmarks[cells[cell]!.b]!.tasks
    taskSelect.replaceChildren(
      ...tasks.map((task) => {
        const marks = report.repeatsOf(cell, task).map(mark).join(' ')
        return el('option', { value: task, selected: task === wanted }, task + (marks ? '  \u2014  ' + marks : ''))
      }),
    )
    if (typeof wanted === 'string' && tasks.indexOf(wanted) >= 0) taskSelect.value = wanted
  }

  const fillRepeats = (cell: number, task: string, wanted: number): void => {
    const repeats = report.repeatsOf(cell, task)
    repeatSelect.replaceChildren(
      ...repeats.map((t) =>
        el(
          'option',
          { value: String(t.r) },
          'repeat ' + t.r + ' \u2014 ' + outcomeText(t, 'not solved in ' + t.a.length),
        ),
      ),
    )
    if (repeats.some((t) => t.r === wanted)) repeatSelect.value = String(wanted)
  }

  const show = (): void => {
    const trajectory = report.trajectory(Number(cellSelect.value), taskSelect.value, Number(repeatSelect.value))
    head.replaceChildren()
    list.replaceChildren()
    if (!trajectory) {
      head.append(missingNote(report))
      return
    }
    head.append(...trajectoryHeading(report, trajectory))
    if (trajectory.e !== null && trajectory.e !== undefined)
      head.append(el('pre', { class: 'error' }, report.text(trajectory.e)))
    const budget = cells[trajectory.c]!.K
    trajectory.a.forEach((attempt, i) => {
      const card = attemptCard(report, trajectory, attempt, i > 0 ? trajectory.a[i - 1]! : null, budget)
      card.id = 'tv-attempt-' + attempt.i
      list.append(card)
    })
  }

  const open: Open = (cell, task, repeat) => {
    cellSelect.value = String(cell)
    fillTasks(cell, task)
    fillRepeats(cell, taskSelect.value, repeat)
    show()
  }

  cellSelect.addEventListener('change', () =>
    open(Number(cellSelect.value), taskSelect.value, Number(repeatSelect.value)),
  )
  taskSelect.addEventListener('change', () => {
    fillRepeats(Number(cellSelect.value), taskSelect.value, Number(repeatSelect.value))
    show()
  })
  repeatSelect.addEventListener('change', show)
  const first = report.data.start || { c: 0, t: benchmarks[0]?.tasks[0], r: 0 }
  if (cells.length > 0) open(first.c, first.t, first.r)
  return open
}

/** The grid: a click (or Enter, Space) on a task × cell square opens it in the viewer; the view switch. */
function wireGrid(open: Open | null): void {
  document.addEventListener('click', (event) => {
    const target = event.target instanceof Element ? event.target.closest('[data-gc]') : null
    if (!target || !open) return
    const repeat = target.closest('[data-r]')
    open(
      Number(target.getAttribute('data-gc')),
      target.getAttribute('data-t'),
      repeat ? Number(repeat.getAttribute('data-r')) : 0,
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
  // Repeat-averaged or per-repeat squares.
  document.querySelectorAll<HTMLInputElement>('[data-grid-view]').forEach((input) => {
    input.addEventListener('change', () => {
      const grid = document.getElementById(input.getAttribute('data-grid-view') ?? '')
      if (grid && input.checked) grid.setAttribute('data-view', input.value)
    })
  })
}

// Last, once every declaration above is initialised (the bundle turns consts into vars).
const dataNode = document.getElementById('seqk-data')
if (dataNode) start(dataNode)
