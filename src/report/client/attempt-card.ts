/**
 * One attempt of a trajectory as the report's viewer shows it: a header (its number, verdict,
 * summary, tokens and cost, the revision's class), tabs over its code (the diff against the
 * attempt before, the answer, the code that was verified), and beside them the annotation, the
 * error, the failing tests, an agent's episode and the feedback it was sent.
 */
import type {
  ClientAnnotation,
  ClientAttempt,
  ClientCell,
  ClientEpisode,
  ClientFailingTest,
  ClientTrajectory,
  TextRef,
} from '../client-data.js'
// The one money format of every table and report (metrics/ is plain code, no Node), bundled in.
import { money } from '../../metrics/format.js'
import { diffTable } from './diff-view.js'
import { el } from './dom.js'

/** What the cards read of the page's data: its cells, and the text a reference points at. */
export interface CardContext {
  readonly cells: readonly ClientCell[]
  /** The text of a string-table reference (texts are stored once in the page's data). */
  readonly text: (ref: TextRef | undefined) => string | undefined
}

const CLASS_TEXT: Record<NonNullable<ClientAnnotation['k']>, string> = {
  unhelpful: 'unhelpful revision',
  some: 'addressed some feedback',
  all: 'addressed all feedback',
}

/** The code an attempt's verdict judged: its own text, a slice of its answer, or the whole answer. */
export function codeOf(ctx: CardContext, attempt: ClientAttempt): string | undefined {
  if (typeof attempt.x === 'number') return ctx.text(attempt.x)
  if (Array.isArray(attempt.x)) return ctx.text(attempt.a)?.slice(attempt.x[0], attempt.x[1])
  return ctx.text(attempt.a)
}

/** The revision's class as a chip in the attempt's header: what it did with the feedback it answered. */
function annotationChip(annotation: ClientAnnotation): HTMLElement {
  // Fully satisfied of all requests; partly satisfied ones (LLM annotator) counted apart.
  const partly = annotation.part ? annotation.part.length : 0
  const text = annotation.k
    ? CLASS_TEXT[annotation.k] +
      ' (' +
      (annotation.sat.length - partly) +
      ' of ' +
      annotation.req.length +
      (partly ? ', ' + partly + ' partly' : '') +
      ')'
    : 'annotation failed'
  return el(
    'span',
    {
      class: 'chip revision-class',
      'data-class': annotation.k || 'error',
      title: 'judged by ' + annotation.by + (annotation.smp ? ' (a sampled revision)' : ''),
    },
    text,
  )
}

/** Where one request of the feedback stands after the revision. */
function requestState(annotation: ClientAnnotation, request: string): string {
  if (annotation.un && annotation.un.indexOf(request) >= 0) return 'not reported by the verdict'
  if (annotation.part && annotation.part.indexOf(request) >= 0) return 'partly satisfied'
  return annotation.sat.indexOf(request) >= 0 ? 'satisfied' : 'not satisfied'
}

/** The requests, one line each: satisfied, partly, not satisfied, or not reported by the verdict. */
function annotationDetail(ctx: CardContext, annotation: ClientAnnotation, previous: ClientAttempt | null): Node[] {
  const title =
    'Did it address the feedback' +
    (previous ? ' on attempt ' + previous.i : '') +
    '? (' +
    annotation.by +
    (annotation.smp ? ', sampled' : '') +
    ')'
  const out: Node[] = [el('h4', null, title)]
  if (annotation.err !== undefined) {
    out.push(el('p', { class: 'note' }, 'The annotation failed: ' + (ctx.text(annotation.err) || '')))
    return out
  }
  out.push(
    el(
      'p',
      { class: 'note revision-verdict', 'data-class': annotation.k },
      annotation.k ? CLASS_TEXT[annotation.k] : '',
    ),
  )
  const item = (request: string) => {
    const state = requestState(annotation, request)
    const sign = state === 'satisfied' ? '\u2713 ' : state === 'partly satisfied' ? '\u00bd ' : '\u2717 '
    return el('li', { 'data-request': request, 'data-state': state }, sign + request + ': ' + state)
  }
  out.push(el('ul', { class: 'requests' }, annotation.req.map(item)))
  if (annotation.why !== undefined) out.push(el('p', { class: 'note' }, ctx.text(annotation.why)))
  return out
}

/** An agent's attempt as a timeline: each turn's text and cost, then its tool calls with their results or errors. */
function episodeTimeline(ctx: CardContext, episode: ClientEpisode): HTMLElement {
  const calls = episode.t.reduce((n, turn) => n + turn.c.length, 0)
  const turns = episode.t.map((turn, i) =>
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
      ...(ctx.text(turn.x) ? [el('pre', null, ctx.text(turn.x))] : []),
      ...turn.c.map((call) =>
        el(
          'div',
          { class: 'tool-call ' + (call.er === undefined ? 'pass' : 'fail') },
          el('code', null, call.n + '(' + (ctx.text(call.a) ?? '') + ')'),
          el('span', { class: 'note' }, ' ' + call.ms + ' ms'),
          el('pre', null, call.er === undefined ? (ctx.text(call.r) ?? '') : 'error: ' + (ctx.text(call.er) ?? '')),
        ),
      ),
    ),
  )
  return el(
    'div',
    { class: 'episode' },
    el('h4', null, 'Episode: ' + episode.t.length + ' turns, ' + calls + ' tool calls, ended by ' + episode.e),
    el('ol', null, ...turns),
  )
}

/** The attempt's verdict in words. */
function verdictText(attempt: ClientAttempt): string {
  if (attempt.p) return '\u2713 passed'
  if (attempt.o === 'load-error') return '\u2717 did not load'
  if (attempt.o === 'timeout') return '\u2717 timed out'
  if (attempt.o === 'no-answer') return '\u2717 no answer'
  return '\u2717 failed'
}

function attemptHeader(ctx: CardContext, attempt: ClientAttempt, independent: boolean, budget: number): HTMLElement {
  const meta = [attempt.tok === null ? 'tokens unknown' : attempt.tok + ' tokens']
  if (attempt.cost !== null && attempt.cost !== undefined) meta.push(money(attempt.cost))
  if (attempt.u === true) meta.push('unmodified revision')
  if (attempt.fin && attempt.fin !== 'stop') meta.push('finish: ' + attempt.fin)
  return el(
    'header',
    null,
    el('span', { class: 'num' }, (independent ? 'Sample ' : 'Attempt ') + attempt.i + ' of ' + budget),
    el('span', { class: 'badge ' + (attempt.p ? 'pass' : 'fail') }, verdictText(attempt)),
    el('span', { class: 'summary' }, ctx.text(attempt.s)),
    el('span', { class: 'meta' }, meta.join(' \u00b7 ')),
    attempt.ann ? annotationChip(attempt.ann) : null,
  )
}

/** The attempt's code views (the diff against the attempt before, the answer, the verified code), as tabs. */
function codeTabs(
  ctx: CardContext,
  attempt: ClientAttempt,
  previous: ClientAttempt | null,
  independent: boolean,
): HTMLElement {
  const panes = el('div', { class: 'panes' })
  const tabs = el('div', { class: 'tabs', role: 'tablist' })
  const views: [name: string, label: string, render: () => Node][] = []
  if (previous && typeof attempt.d === 'string') {
    const [added, removed] = attempt.ds || [0, 0]
    const runs = attempt.d
    views.push([
      'diff',
      'Diff vs ' + (independent ? 'sample ' : 'attempt ') + previous.i + ' (+' + added + ' \u2212' + removed + ')',
      () => diffTable(codeOf(ctx, previous), codeOf(ctx, attempt), runs),
    ])
  }
  views.push(['answer', 'Answer', () => el('pre', { class: 'answer' }, ctx.text(attempt.a))])
  if (attempt.x !== undefined && codeOf(ctx, attempt) !== ctx.text(attempt.a))
    views.push(['code', 'Verified code', () => el('pre', { class: 'answer' }, codeOf(ctx, attempt))])
  const paneList: HTMLElement[] = []
  const buttons: HTMLElement[] = []
  views.forEach(([name, label, render], index) => {
    const pane = el('div', { class: 'pane pane-' + name, hidden: index !== 0 })
    pane.append(render())
    panes.append(pane)
    paneList.push(pane)
    const button = el(
      'button',
      { type: 'button', role: 'tab', 'aria-selected': index === 0 ? 'true' : 'false', 'data-view': name },
      label,
    )
    button.addEventListener('click', () => {
      paneList.forEach((p) => (p.hidden = !p.classList.contains('pane-' + name)))
      buttons.forEach((b) => b.setAttribute('aria-selected', b === button ? 'true' : 'false'))
    })
    tabs.append(button)
    buttons.push(button)
  })
  return el('div', { class: 'code' }, tabs, panes)
}

/** The failing tests: call, expected and what it got (or its error). */
function failingTests(ctx: CardContext, tests: readonly ClientFailingTest[]): HTMLElement {
  const code = (ref: TextRef | undefined) => el('code', null, ref === undefined ? '' : ctx.text(ref))
  return el(
    'table',
    { class: 'tests' },
    el('thead', null, el('tr', null, el('th', null, 'call'), el('th', null, 'expected'), el('th', null, 'got'))),
    el(
      'tbody',
      null,
      tests.map((test) =>
        el(
          'tr',
          null,
          el('td', null, el('code', null, ctx.text(test.call !== undefined ? test.call : test.src) || '')),
          el('td', null, code(test.exp)),
          el('td', null, code(test.got === undefined ? test.err : test.got)),
        ),
      ),
    ),
  )
}

/** Beside the code: the annotation, the error, the tests, an agent's episode, the feedback sent. */
function sidePanel(
  ctx: CardContext,
  attempt: ClientAttempt,
  previous: ClientAttempt | null,
  sequential: boolean,
  budget: number,
): HTMLElement {
  const side = el('div', { class: 'side' })
  if (attempt.ann) side.append(...annotationDetail(ctx, attempt.ann, previous))
  if (attempt.er !== undefined)
    side.append(el('h4', null, 'Error'), el('pre', { class: 'error' }, ctx.text(attempt.er)))
  if (attempt.ft && attempt.ft.length > 0) {
    side.append(el('h4', null, 'Failing tests (' + attempt.ft.length + (attempt.n ? ' of ' + attempt.n : '') + ')'))
    side.append(failingTests(ctx, attempt.ft))
    if (attempt.more) side.append(el('p', { class: 'note' }, attempt.more + ' more failing tests not shown'))
  } else if (attempt.n)
    side.append(el('p', { class: 'note' }, attempt.p ? 'All ' + attempt.n + ' tests passed.' : attempt.n + ' tests'))
  if (attempt.ep) side.append(episodeTimeline(ctx, attempt.ep))
  if (attempt.f)
    side.append(
      el('h4', null, 'Feedback sent after this attempt (' + attempt.f.k + ')'),
      el('pre', { class: 'feedback' }, ctx.text(attempt.f.t)),
    )
  else if (!attempt.p && sequential && attempt.i < budget)
    side.append(el('p', { class: 'note' }, 'No feedback recorded.'))
  return side
}

/**
 * The card of one attempt of `trajectory`, `previous` the attempt before it (null for the first).
 *
 * @example
 * list.append(attemptCard(ctx, trajectory, trajectory.a[1]!, trajectory.a[0]!, 5))
 */
export function attemptCard(
  ctx: CardContext,
  trajectory: ClientTrajectory,
  attempt: ClientAttempt,
  previous: ClientAttempt | null,
  budget: number,
): HTMLElement {
  const kind = ctx.cells[trajectory.c]!.kind
  return el(
    'article',
    { class: 'attempt ' + (attempt.p ? 'pass' : 'fail'), 'data-attempt': attempt.i },
    attemptHeader(ctx, attempt, kind === 'independent', budget),
    el(
      'div',
      { class: 'attempt-body' },
      codeTabs(ctx, attempt, previous, kind === 'independent'),
      sidePanel(ctx, attempt, previous, kind === 'sequential', budget),
    ),
  )
}
