/**
 * The live view's script (`seqk view`): starts from the state the server rendered into the page
 * (its JSON block), follows the event stream from that state's event id (a snapshot, then
 * updates), and renders the same view the server rendered (`../live/view.ts`): per cell progress
 * n/m, its state and verdict, errors as they happen, the latest trajectories, then that the run
 * ended with its verdict and a link to its report. A cell's trajectories are fetched page by page
 * on demand. Every node is built with `textContent` (through `el`), never markup, so error
 * messages and ids cannot become markup.
 *
 * Browser code, checked by `tsconfig.json` here and bundled by `../client.ts` (`liveScript`).
 */
import { applyEvent, emptySnapshot, type LiveEvent, type LiveSnapshot, type LiveTrajectory } from '../live/events.js'
import { liveView, type LiveView } from '../live/view.js'

type Kid = Node | string | number | null | undefined | false

/** Trajectories fetched per page of a cell. */
const PAGE = 50

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> | null,
  ...kids: Kid[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  if (attrs) for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v)
  for (const kid of kids)
    if (kid !== null && kid !== undefined && kid !== false) node.append(kid instanceof Node ? kid : String(kid))
  return node
}

const root = document.getElementById('live')
if (root) start(root)

function start(root: HTMLElement): void {
  const badge = document.getElementById('live-state')
  const runLine = document.getElementById('live-run')
  let state: LiveSnapshot = emptySnapshot(null, '')
  try {
    state = JSON.parse(document.getElementById('live-data')?.textContent ?? 'null') as LiveSnapshot
  } catch {
    // Rendered without its state: the stream's snapshot fills it.
  }
  /** Cells whose trajectories are open, with the pages fetched so far. */
  const open = new Map<string, { items: LiveTrajectory[]; total: number }>()
  let offline = false

  function cellsTable(view: LiveView): Node {
    const body = el('tbody', { id: 'live-cells' })
    for (const c of view.cells) {
      const button = el(
        'button',
        { class: 'more', 'data-page': c.key, type: 'button' },
        open.has(c.key) ? 'hide' : 'trajectories',
      )
      button.addEventListener('click', () => toggle(c.key))
      body.append(
        el(
          'tr',
          { 'data-cell': c.cellId, 'data-key': c.key, 'data-phase': c.phase },
          el('td', null, c.benchmark),
          el('td', null, c.cellId),
          el(
            'td',
            { class: 'progress' },
            el('progress', { max: String(c.max), value: String(c.done) }),
            el('span', { class: 'count' }, c.count),
          ),
          el('td', { class: 'num solved' }, c.solved),
          el('td', { class: 'num failed' }, c.failed),
          el('td', { class: 'num errored' }, c.errored),
          el(
            'td',
            { class: 'state' },
            c.state,
            c.unstable ? el('div', { class: 'note verifier-unstable' }, c.unstable) : null,
          ),
          el('td', { class: 'verdict' }, c.verdict ? el('span', { class: `badge ${c.verdictKind}` }, c.verdict) : null),
          el('td', null, button),
        ),
      )
      const page = open.get(c.key)
      if (page)
        body.append(
          el('tr', { class: 'page', 'data-page-of': c.key }, el('td', { colspan: '9' }, pageList(c.key, page))),
        )
    }
    const table = el(
      'table',
      { class: 'live' },
      el(
        'thead',
        null,
        el(
          'tr',
          null,
          ...['benchmark', 'cell', 'progress'].map((h) => el('th', null, h)),
          ...['solved', 'failed', 'errors'].map((h) => el('th', { class: 'num' }, h)),
          el('th', null, 'state'),
          el('th', null, 'verdict'),
          el('th', null),
        ),
      ),
      body,
    )
    if (view.cells.length === 0) table.hidden = true
    return table
  }

  function pageList(key: string, page: { items: LiveTrajectory[]; total: number }): Node {
    const list = el('ul', { class: 'live-list' })
    for (const t of page.items) {
      const outcome =
        t.status === 'solved'
          ? `solved at attempt ${t.firstSuccess ?? t.attempts}`
          : t.status === 'failed'
            ? `failed after ${t.attempts} attempts`
            : `error: ${t.error?.message ?? ''}`
      list.append(
        el(
          'li',
          { 'data-status': t.status },
          el('span', { class: `st ${t.status}` }, `${t.taskId} #${t.repeat + 1}`),
          ` · ${outcome}`,
          t.summary && t.status !== 'error' ? ` · ${t.summary}` : '',
        ),
      )
    }
    const shown = el('p', { class: 'muted' }, `${page.items.length} of ${page.total} trajectories`)
    if (page.items.length < page.total) {
      const more = el('button', { class: 'more', type: 'button' }, `next ${PAGE}`)
      more.addEventListener('click', () => void fetchPage(key, page.items.length))
      shown.append(' ', more)
    }
    return el('div', null, list, shown)
  }

  async function fetchPage(key: string, offset: number): Promise<void> {
    const response = await fetch(`/trajectories?cell=${encodeURIComponent(key)}&offset=${offset}&limit=${PAGE}`)
    if (!response.ok) return
    const page = (await response.json()) as { total: number; items: LiveTrajectory[] }
    const had = open.get(key)?.items ?? []
    open.set(key, { total: page.total, items: offset === 0 ? page.items : [...had, ...page.items] })
    render()
  }

  function toggle(key: string): void {
    if (open.has(key)) {
      open.delete(key)
      render()
    } else void fetchPage(key, 0)
  }

  function list(id: string, empty: string, items: Node[]): Node[] {
    return [
      ...(items.length === 0 ? [el('p', { class: 'empty' }, empty)] : []),
      el('ul', { class: 'live-list', id }, ...items),
    ]
  }

  function render(): void {
    const view = liveView(state)
    if (badge) {
      badge.textContent = offline
        ? state.ended
          ? `${view.badge.text} · server stopped`
          : 'disconnected · retrying'
        : view.badge.text
      badge.className = `badge live-state ${offline ? 'offline' : view.badge.kind}`
    }
    if (runLine) runLine.textContent = view.runLine
    document.title = view.title
    const parts: Node[] = []
    if (view.ended) {
      parts.push(
        el(
          'div',
          { class: 'callout live-ended', id: 'live-ended' },
          el(
            'p',
            null,
            el('strong', null, view.ended.text),
            view.ended.report ? ' ' : null,
            view.ended.report ? el('a', { href: '/report', id: 'live-report-link' }, 'open the report') : null,
          ),
          view.ended.reasons.length > 0
            ? el('ul', { class: 'reasons' }, ...view.ended.reasons.map((r) => el('li', { class: 'fail' }, `✗ ${r}`)))
            : null,
        ),
      )
    }
    if (view.loadErrors.length > 0) {
      parts.push(
        el(
          'section',
          { class: 'bench' },
          el('h2', null, 'Files that failed to load'),
          el(
            'div',
            { class: 'card' },
            el(
              'ul',
              { class: 'live-list', id: 'live-load-errors' },
              ...view.loadErrors.map((e) => el('li', null, el('span', { class: 'st error' }, '✗'), ` ${e}`)),
            ),
          ),
        ),
      )
    }
    parts.push(
      el(
        'section',
        { class: 'bench' },
        el('h2', null, 'Cells'),
        el(
          'div',
          { class: 'card' },
          view.cells.length === 0 ? el('p', { class: 'empty' }, 'No cell is planned or running yet.') : null,
          cellsTable(view),
        ),
      ),
    )
    parts.push(
      el(
        'section',
        { class: 'bench' },
        el('h2', null, 'Errors'),
        el('p', { class: 'lede' }, 'Infrastructure errors (the model, verifier or critic failed), as they happen.'),
        el(
          'div',
          { class: 'card' },
          ...list(
            'live-errors',
            'No errors so far.',
            view.errors.map((e) => el('li', null, e.where, el('span', { class: 'live-error-message' }, e.message))),
          ),
        ),
      ),
    )
    parts.push(
      el(
        'section',
        { class: 'bench' },
        el('h2', null, 'Latest trajectories'),
        el(
          'div',
          { class: 'card' },
          ...list(
            'live-trajectories',
            'No trajectory has finished yet.',
            view.recent.map((t) =>
              el(
                'li',
                { 'data-status': t.status },
                el('span', { class: `st ${t.status}` }, t.outcome),
                ` · ${t.where}`,
                t.summary ? ` · ${t.summary}` : '',
              ),
            ),
          ),
        ),
      ),
    )
    if (view.batches.length > 0) {
      parts.push(
        el(
          'section',
          { class: 'bench' },
          el('h2', null, 'Batches'),
          el('p', { class: 'lede' }, "The provider batches a batched actor's calls went in: a round of a cell each."),
          el(
            'div',
            { class: 'card' },
            el(
              'ul',
              { class: 'live-list', id: 'live-batches' },
              ...view.batches.map((b) => el('li', { 'data-batch': b.batchId, 'data-status': b.status }, b.text)),
            ),
          ),
        ),
      )
    }
    if (view.malformed.length > 0) {
      parts.push(
        el(
          'section',
          { class: 'bench' },
          el('h2', null, 'Malformed lines'),
          el('p', { class: 'lede' }, 'Lines of the run files that are not valid records; they are skipped.'),
          el(
            'div',
            { class: 'card' },
            el(
              'ul',
              { class: 'live-list', id: 'live-malformed' },
              ...view.malformed.map((m) => el('li', null, el('span', { class: 'live-error-message' }, m))),
            ),
          ),
        ),
      )
    }
    root.replaceChildren(...parts)
  }

  // Buttons of the server-rendered rows work before the first event.
  for (const button of root.querySelectorAll<HTMLButtonElement>('button[data-page]'))
    button.addEventListener('click', () => toggle(button.dataset.page ?? ''))

  const since = root.dataset.lastId
  const source = new EventSource(since ? `/events?since=${encodeURIComponent(since)}` : '/events')
  source.onmessage = (message) => {
    let event: LiveEvent
    try {
      event = JSON.parse(String(message.data)) as LiveEvent
    } catch {
      return
    }
    // A new run starts over: its cells' pages are another run's.
    if (event.type === 'snapshot' && event.snapshot.runId !== state.runId) open.clear()
    state = applyEvent(state, event)
    offline = false
    render()
  }
  // The browser reconnects on its own (sending the last event id); say so meanwhile.
  source.onerror = () => {
    if (source.readyState !== EventSource.OPEN) {
      offline = true
      render()
    }
  }
}
