import { createHash } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import { fakeRun } from '../../test/report-fixtures.js'
import { historyEntries, type HistoryEntry } from './history.js'
import { protocolChips, renderHtmlReport } from './html.js'
import type { ReportData } from './client-data.js'

const HOSTILE_ANSWER = 'Sure!</script><script>alert(1)</script><!-- <img src=x onerror=alert(2)> & \u2028'
const HOSTILE_TASK = '<img src=x onerror=alert(3)>'
const HOSTILE_ACTOR = 'sim:"><svg onload=alert(4)>'

const run = fakeRun({
  actors: [
    { id: 'sim:a', skill: 0.3 },
    { id: HOSTILE_ACTOR, skill: 0.6 },
  ],
  tasks: ['t/1', HOSTILE_TASK, 't/3'],
  answerFor: (task, attempt) => (task === HOSTILE_TASK && attempt === 1 ? HOSTILE_ANSWER : undefined),
})
const cells = run.summary.benchmarks[0]!.cells

/** `includes` without printing the whole page when it fails. */
function has(html: string, text: string): boolean {
  return html.includes(text)
}

function dataOf(html: string): ReportData {
  const start = html.indexOf('<script type="application/json" id="seqk-data">')
  const from = html.indexOf('>', start) + 1
  return JSON.parse(html.slice(from, html.indexOf('</script>', from)))
}

describe('renderHtmlReport', () => {
  let html = ''
  beforeAll(async () => {
    html = await renderHtmlReport({
      summary: run.summary,
      trajectories: run.trajectories,
      analysis: { note: '</pre><script>alert(5)</script>' },
    })
  })

  it('escapes model, task and actor text everywhere it appears', () => {
    // Exactly the two scripts of the page: the data block and the viewer.
    expect(html.match(/<script/gi)).toHaveLength(2)
    expect(has(html, '<img src=x')).toBe(false)
    expect(has(html, '<svg onload')).toBe(false)
    expect(has(html, '</pre><script>')).toBe(false)
    expect(has(html, '&lt;img src=x onerror=alert(3)&gt;'), '&lt;img src=x onerror=alert(3)&gt;').toBe(true)
    // The viewer still gets the text exactly as the model wrote it.
    const data = dataOf(html)
    expect(data.strings).toContain(HOSTILE_ANSWER)
    expect(data.traj.some((t) => t.t === HOSTILE_TASK)).toBe(true)
    expect(data.cells.map((c) => c.id)).toContain(`${HOSTILE_ACTOR} · verifier`)
  })

  it('loads nothing from the network and allows only its own script', () => {
    expect(/\b(src|href)\s*=\s*["']?(https?:)?\/\//i.test(html)).toBe(false)
    expect(/url\(\s*["']?https?:/i.test(html)).toBe(false)
    expect(/@import/.test(html)).toBe(false)
    const script = html.slice(html.lastIndexOf('<script>') + '<script>'.length, html.lastIndexOf('</script>'))
    const hash = createHash('sha256').update(script).digest('base64')
    expect(has(html, `script-src 'sha256-${hash}'`), `script-src 'sha256-${hash}'`).toBe(true)
    expect(has(html, "default-src 'none'"), "default-src 'none'").toBe(true)
  })

  it('draws the curves per mode with one line per actor, and the Pass@k panel', () => {
    const figures = [
      ...html.matchAll(/<figure class="curves" data-mode="([^"]+)" data-lines="(\d+)">([\s\S]*?)<\/figure>/g),
    ]
    expect(figures.map((f) => f[1])).toEqual(['binary', 'verifier', 'independent'])
    for (const f of figures) {
      expect(f[2]).toBe('2')
      expect(f[3]!.match(/aria-roledescription="line mark"/g)).toHaveLength(2)
      expect(f[3]).toMatch(/95% CI/)
    }
  })

  it('shows the protocol next to the numbers', () => {
    for (const cell of cells) expect(has(html, `fp ${cell.fingerprint}`), `fp ${cell.fingerprint}`).toBe(true)
    expect(protocolChips(cells[0]!)).toEqual([
      'history full',
      'binary feedback v1',
      'K=4',
      'budget hidden',
      `fp ${cells[0]!.fingerprint}`,
    ])
    expect(protocolChips(cells[2]!)).toEqual(['independent sampling', 'K=4', `fp ${cells[2]!.fingerprint}`])
    expect(
      has(html, 'budget not disclosed (Seq@k for k &lt; K read by truncation)'),
      'budget not disclosed (Seq@k for k &lt; K read by truncation)',
    ).toBe(true)
  })

  it('has a rank chart, cost charts per protocol and a task × cell grid', () => {
    expect(/<figure class="rank wide">/.test(html)).toBe(true)
    expect(html.match(/<figure class="cost" data-mode=/g)).toHaveLength(3)
    expect(has(html, 'mean cost per task (USD)'), 'mean cost per task (USD)').toBe(true)
    expect(/<table class="grid" id="grid-0" data-view="average" data-tasks="3" data-cells="6">/.test(html)).toBe(true)
    expect(html.match(/<td class="gc"/g)).toHaveLength(3 * 6)
    expect(has(html, 'No history given'), 'No history given').toBe(true)
  })

  it('renders the analysis as escaped JSON', () => {
    expect(
      has(html, '&lt;/pre&gt;&lt;script&gt;alert(5)&lt;/script&gt;'),
      '&lt;/pre&gt;&lt;script&gt;alert(5)&lt;/script&gt;',
    ).toBe(true)
  })
})

describe('renderHtmlReport with hostile text in every field a user or a server writes', () => {
  const INJECT = '</script><script>alert(9)</script>"\'><img src=x onerror=alert(9)>'
  it('escapes the title, benchmark, file, errors, load errors, cells that did not run and the analysis', async () => {
    const hostile = fakeRun({
      benchmark: `bench ${INJECT}`,
      file: `evals/${INJECT}.eval.ts`,
      modes: ['verifier', 'independent'],
      errorFor: (task) => (task === 't/2' ? `HTTP 500 ${INJECT}` : undefined),
    })
    const summary = {
      ...hostile.summary,
      loadErrors: [{ file: `evals/${INJECT}.eval.ts`, error: `SyntaxError: ${INJECT}` }],
      notRun: [
        {
          file: 'evals/x.eval.ts',
          benchmark: `bench ${INJECT}`,
          cellId: `sim:x · ${INJECT}`,
          reason: `skipped ${INJECT}`,
        },
      ],
    }
    const page = await renderHtmlReport(
      { summary, trajectories: hostile.trajectories, analysis: INJECT },
      { title: `Report ${INJECT}` },
    )
    // The page's own two scripts and nothing else; no injected element or attribute survives.
    expect(page.match(/<script/gi)).toHaveLength(2)
    expect(page.match(/<\/script/gi)).toHaveLength(2)
    expect(has(page, '<img src=x')).toBe(false)
    expect(has(page, '"\'>')).toBe(false)
    const escaped =
      '&lt;/script&gt;&lt;script&gt;alert(9)&lt;/script&gt;&quot;&#39;&gt;&lt;img src=x onerror=alert(9)&gt;'
    for (const text of [
      `Report ${escaped}`,
      `bench ${escaped}`,
      `SyntaxError: ${escaped}`,
      `skipped ${escaped}`,
      `HTTP 500 ${escaped}`,
      `<pre>${escaped}</pre>`,
    ]) {
      expect(has(page, text), text).toBe(true)
    }
    // The data block still carries the text as written, for the viewer to show as text.
    expect(dataOf(page).benchmarks[0]!.name).toBe(`bench ${INJECT}`)
  })
})

describe('renderHtmlReport with history', () => {
  it('draws a trend from earlier runs of the same protocol and says what changed', async () => {
    const earlier = fakeRun({
      runId: 'run-0',
      seed: 3,
      actors: [
        { id: 'sim:a', skill: 0.2 },
        { id: HOSTILE_ACTOR, skill: 0.5 },
      ],
      tasks: ['t/1', HOSTILE_TASK, 't/3'],
    })
    const history: HistoryEntry[] = [
      ...historyEntries({ ...earlier.summary, createdAt: '2025-12-30T00:00:00.000Z' }, { commit: 'aaaaaaa' }),
      // A different protocol of the same cell is never joined.
      ...historyEntries(earlier.summary, { commit: 'bbbbbbb' }).map((e) => ({
        ...e,
        runId: 'run-x',
        fingerprint: 'other',
      })),
    ]
    const html = await renderHtmlReport({ summary: run.summary, trajectories: run.trajectories, history })
    expect(html.match(/<figure class="trend" data-mode=/g)).toHaveLength(3)
    expect(has(html, '1 earlier run<'), '1 earlier run<').toBe(true)
    expect(/<h3>Since the last run<\/h3>/.test(html)).toBe(true)
    // The earlier run of the same protocol is compared; the other protocol is not.
    expect(/<li>sim:a · verifier: Seq@4 [\d.]+ → [\d.]+ \([+±-][\d.]+\)<\/li>/.test(html)).toBe(true)
    expect(has(html, 'fingerprint other')).toBe(false)
  })

  it('compares with an earlier run that reused this run id (SEQK_RUN_DIR in CI), and says nothing with no history', async () => {
    const sameId = historyEntries({ ...run.summary, createdAt: '2025-12-30T00:00:00.000Z' }, { commit: 'aaaaaaa' })
    const html = await renderHtmlReport({ summary: run.summary, trajectories: run.trajectories, history: sameId })
    expect(has(html, '1 earlier run<'), '1 earlier run<').toBe(true)
    expect(has(html, 'cells unchanged')).toBe(true)
    const none = await renderHtmlReport({ summary: run.summary, trajectories: run.trajectories })
    expect(/<h3>Since the last run<\/h3>/.test(none)).toBe(false)
  })
})

describe('an agent attempt in the report', () => {
  it('carries the episode to the viewer: turns, tool calls with results or errors, why it ended; tool text stays data', async () => {
    const agent = fakeRun({ modes: ['verifier'], actors: [{ id: 'agent:a', skill: 0.5 }], tasks: ['t'] })
    const episode = {
      turns: [
        {
          index: 1,
          text: 'reading',
          toolCalls: [
            {
              id: 'c1',
              name: 'read_file',
              arguments: '{"path":"a.py"}',
              result: HOSTILE_ANSWER,
              error: null,
              durationMs: 3.4,
            },
            { id: 'c2', name: 'run', arguments: '{}', result: null, error: 'the tool failed: boom', durationMs: 1 },
          ],
          usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
          costUsd: 0.001,
          latencyMs: 2,
          replayed: false,
        },
        { index: 2, text: 'done', toolCalls: [], usage: null, costUsd: null, latencyMs: 2, replayed: false },
      ],
      endedBy: 'answer' as const,
    }
    const trajectories = agent.trajectories.map((t) => ({ ...t, attempts: t.attempts.map((a) => ({ ...a, episode })) }))
    const html = await renderHtmlReport({ summary: agent.summary, trajectories })
    expect(html.match(/<script/gi)).toHaveLength(2)
    const data = dataOf(html)
    const ep = data.traj[0]!.a[0]!.ep!
    const text = (ref: number | string | undefined) => (typeof ref === 'number' ? data.strings[ref] : ref)
    expect(ep.e).toBe('answer')
    expect(
      ep.t.map((turn) => [
        text(turn.x),
        turn.tok,
        turn.cost,
        turn.c.map((c) => [c.n, text(c.a), text(c.r), text(c.er), c.ms]),
      ]),
    ).toEqual([
      [
        'reading',
        15,
        0.001,
        [
          ['read_file', '{"path":"a.py"}', HOSTILE_ANSWER, undefined, 3],
          ['run', '{}', undefined, 'the tool failed: boom', 1],
        ],
      ],
      ['done', null, null, []],
    ])
  })
})

describe('renderHtmlReport limits', () => {
  it('cuts very long answers with a note', async () => {
    const long = fakeRun({
      modes: ['verifier'],
      actors: [{ id: 'a', skill: 0.5 }],
      tasks: ['t'],
      answerFor: () => 'x'.repeat(500),
    })
    const html = await renderHtmlReport(
      { summary: long.summary, trajectories: long.trajectories },
      { maxAnswerChars: 100 },
    )
    expect(
      dataOf(html).strings.some(
        (s) => s.startsWith('x'.repeat(100)) && s.includes('[400 more characters not kept in the report]'),
      ),
    ).toBe(true)
  })

  it('keeps a big run small: a sample of every cell within the byte budget, errors first, and says where the rest are', async () => {
    const tasks = Array.from({ length: 60 }, (_, i) => `t/${i}`)
    const big = fakeRun({
      tasks,
      repeats: 3,
      errorFor: (task) => (task === 't/7' ? 'HTTP 503' : undefined),
      answerFor: () => 'y'.repeat(300),
    })
    const html = await renderHtmlReport(
      { summary: big.summary, trajectories: big.trajectories },
      { maxTrajectoryBytes: 30_000, maxGridTasks: 20 },
    )
    const data = dataOf(html)
    expect(data.kept).toEqual({ shown: data.traj.length, of: big.trajectories.length, maxBytes: 30_000 })
    expect(data.traj.length).toBeLessThan(big.trajectories.length)
    // Every cell keeps examples, its errors first.
    expect(new Set(data.traj.map((t) => t.c)).size).toBe(data.cells.length)
    for (const c of data.cells.keys()) {
      const mine = data.traj.filter((t) => t.c === c)
      // (The cell the viewer opens with puts that trajectory first.)
      if (big.trajectories.some((t) => t.status === 'error' && t.cellId === data.cells[c]!.id))
        expect(mine.slice(0, 2).map((t) => t.s)).toContain('error')
    }
    const json = /<script type="application\/json" id="seqk-data">(.*?)<\/script>/s.exec(html)![1]!
    expect(json.length).toBeLessThan(30_000 * 1.2)
    expect(html).toContain('data-grid-more="40"')
    expect(html).toContain('The grid shows the first 20 of 60 tasks')
    expect(html).toContain(
      `(${data.traj.length} of ${big.trajectories.length} trajectories in this page: the rest are in the file)`,
    )
    // A small run keeps every trajectory and says nothing of a budget.
    expect(
      dataOf(await renderHtmlReport({ summary: run.summary, trajectories: run.trajectories })).kept,
    ).toBeUndefined()
  })

  it('renders a run without trajectories', async () => {
    const html = await renderHtmlReport({ summary: run.summary, trajectories: [] })
    expect(has(html, '<table class="grid"'), '<table class="grid"').toBe(true)
    expect(dataOf(html).traj).toEqual([])
  })
})

describe('the revision analysis section', () => {
  it('charts the annotated cells (stacked bar and success by class) with the annotator, and names the cells without', async () => {
    const html = await renderHtmlReport({ summary: run.summary, trajectories: run.trajectories })
    const verifier = cells.filter((c) => c.mode === 'verifier')
    expect(has(html, '<h3>Revision analysis: did the revision address the feedback?</h3>')).toBe(true)
    expect(html).toContain(`<figure class="revision-shares" data-cells="${verifier.length}">`)
    expect(html).toContain(`<figure class="revision-success" data-cells="${verifier.length}">`)
    expect(has(html, 'annotator derived/1')).toBe(true)
    expect(has(html, 'every annotatable revision')).toBe(true)
    // A row of numbers per annotated cell; the binary cells are named as not annotated, with why.
    expect(
      html.match(
        /<tr data-cell="[^"]*"><td class="name"><span class="swatch"[^>]*><\/span>[^<]*<\/td><td class="n">\d+<\/td>/g,
      )?.length,
    ).toBeGreaterThanOrEqual(verifier.length)
    expect(html).toMatch(
      /Not annotated: [^<]*binary[^<]*: binary feedback names no request to check a revision against\./,
    )
  })
  it('says so, with no chart, when no cell was annotated', async () => {
    const plain = fakeRun({ requests: false, modes: ['binary', 'verifier'] })
    const html = await renderHtmlReport({ summary: plain.summary, trajectories: plain.trajectories })
    expect(html).toContain('No revision of these cells was annotated, so there is no class to chart.')
    expect(html).not.toContain('class="revision-shares"')
  })
})

describe('a report that explains', () => {
  it('prints why a failed cell failed and its errors under its row, one line per root cause', async () => {
    const failing = fakeRun({
      thresholds: (actor, mode) =>
        mode === 'independent'
          ? { passAt: { 4: 0.3 } }
          : { seqAt: actor === 'sim:careful' ? ({ 1: 0.99 } as Record<number, number>) : { 4: 0.3 } },
      errorFor: (task, _r, actor, mode) =>
        actor === 'sim:quick'
          ? 'connect ECONNREFUSED 127.0.0.1:9'
          : task === 't/2' && mode === 'binary'
            ? 'HTTP 500 from the server'
            : undefined,
    })
    const html = await renderHtmlReport(failing)
    const detail = (cellId: string) =>
      html.slice(
        html.indexOf(`<tr class="detail" data-detail="${cellId}">`),
        html.indexOf('</tr>', html.indexOf(`<tr class="detail" data-detail="${cellId}">`)),
      )
    // Every trajectory of sim:quick errored: the one cause, then the error with where it happened and how many more.
    const quick = detail('sim:quick · binary')
    expect(quick.match(/<li class="fail">/g)).toHaveLength(1)
    expect(quick).toContain('ended in an error, so nothing was measured')
    expect(quick).toContain(
      '⚠ actor failed at attempt 1: connect ECONNREFUSED 127.0.0.1:9 <span class="where">(t/1 repeat 0, t/1 repeat 1, t/2 repeat 0, t/2 repeat 1, t/3 repeat 0)</span>',
    )
    expect(quick).toContain('5 more errors (the summary keeps 5 examples)')
    // A missed threshold and the error rate: two causes, two lines; the badge counts them.
    const careful = detail('sim:careful · binary')
    expect(careful.match(/<li class="fail">/g)).toHaveLength(2)
    expect(careful).toContain('below the required 99.0%')
    expect(html).toMatch(/data-cell="sim:careful · binary">[\s\S]*?<span class="badge fail">fail \(2\)<\/span>/)
    // A passing cell has no reason line, only its protocol.
    expect(detail('sim:careful · independent')).not.toContain('class="reasons"')
  })

  it('keeps the protocol in a details row under each cell, not in a column', async () => {
    const html = await renderHtmlReport({ summary: run.summary, trajectories: run.trajectories })
    expect(html).not.toContain('<th>protocol</th>')
    for (const cell of cells)
      expect(html).toContain(
        `<tr class="detail" data-detail="${cell.cellId.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!)}">`,
      )
    expect(html.match(/<details class="proto">/g)).toHaveLength(cells.length)
  })

  it('says "no thresholds" for a cell that asserts nothing', async () => {
    const none = fakeRun({ thresholds: () => ({}) })
    const html = await renderHtmlReport(none)
    expect(html.match(/<span class="badge none">no thresholds<\/span>/g)).toHaveLength(
      none.summary.benchmarks[0]!.cells.length,
    )
  })

  it('says there is no cost to chart when the server reports no usage, and draws no cost chart', async () => {
    const free = fakeRun({ usage: false, costPerAttempt: null })
    const html = await renderHtmlReport(free)
    expect(html).toContain(
      '<p class="nothing" data-nothing="cost">Every cost is 0: the models have no price and the server reported no token usage',
    )
    expect(html).not.toContain('<figure class="cost"')
  })

  it('says there is no curve when no rate is defined (every trajectory errored)', async () => {
    const broken = fakeRun({ errorFor: () => 'HTTP 500' })
    const html = await renderHtmlReport(broken)
    expect(html.match(/<p class="nothing" data-nothing="curves">No rate is defined at any k/g)).toHaveLength(3)
    expect(html).not.toContain('aria-roledescription="line mark"')
    expect(html).toContain('data-nothing="cost">No point to draw')
  })

  it("names the benchmark of each cell in the viewer's cell list", async () => {
    const a = fakeRun({ benchmark: 'bench A' })
    const b = fakeRun({ benchmark: 'bench B' })
    const summary = { ...a.summary, benchmarks: [...a.summary.benchmarks, ...b.summary.benchmarks] }
    const html = await renderHtmlReport({ summary, trajectories: [...a.trajectories, ...b.trajectories] })
    const select = html.slice(
      html.indexOf('<select id="tv-cell">'),
      html.indexOf('</select>', html.indexOf('<select id="tv-cell">')),
    )
    expect(select).toContain('>sim:quick · binary — bench A</option>')
    expect(select).toContain('>sim:quick · binary — bench B</option>')
  })
})

describe('batch API savings', () => {
  it('the report and the Markdown summary say what batched calls saved against list price', async () => {
    const { renderMarkdownSummary } = await import('./markdown.js')
    const run = fakeRun()
    const cells = run.summary.benchmarks[0]!.cells
    const batched = {
      ...run.summary,
      benchmarks: [
        {
          ...run.summary.benchmarks[0]!,
          cells: cells.map((c, i) =>
            i === 0 ? { ...c, batch: { calls: 12, costUsd: 0.6, listCostUsd: 1.2, savedUsd: 0.6 } } : c,
          ),
        },
      ],
    }
    const html = await renderHtmlReport({ summary: batched, trajectories: run.trajectories })
    expect(html).toMatch(
      /<p class="hint spending">[^<]*12 calls through a batch API, saving \$0\.60 \(50\.0%\) against \$1\.20 at list price/,
    )
    expect(renderMarkdownSummary(batched)).toContain(
      '12 calls through a batch API, saving $0.60 (50.0%) against $1.20 at list price',
    )
  })
})
