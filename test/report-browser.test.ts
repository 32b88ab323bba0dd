// Opens the HTML report of a real run of the bundled evals in headless Chromium: no console
// errors, no network, charts present, the grid complete, the trajectory viewer working, tables
// that fit 1280 px; then a page of synthetic runs that go wrong (a failed threshold, an all-errors
// cell, a server that reports no usage, two benchmarks with the same cell ids): the reasons are
// visible under the cells, empty charts say so, the viewer names the benchmark. Keeps full-page
// screenshots at 1280 and 390 px (test/__screenshots__/report*.png, refreshed by `vitest -u`) for a
// human to look at.
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { BrowserContext, Page } from 'playwright-core'
import { CHROMIUM, hasChromium, launchChromium } from './browser.js'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { readSummary, readTrajectories, type RunSummary, type Trajectory } from '../src/artifacts/index.js'
import { diffLines } from '../src/report/diff.js'
import { fakeRun } from './report-fixtures.js'
import { percent } from '../src/metrics/format.js'
import { fourNumbers } from '../src/protocol/four-numbers.js'
import { historyEntries } from '../src/report/history.js'
import { renderHtmlReport } from '../src/report/html.js'
import { updateMode } from '../src/vitest/baseline.js'

const root = new URL('..', import.meta.url).pathname
const SCREENSHOTS = join(root, 'test/__screenshots__')

/**
 * Snapshot semantics (DESIGN §5): a screenshot is written when missing, refreshed by `vitest -u`,
 * never in CI, so an ordinary test run does not dirty the committed picture (its run id changes
 * every time).
 */
function keepScreenshot(shot: string, name: string): void {
  const target = join(SCREENSHOTS, name)
  const update = updateMode((expect.getState() as unknown as { snapshotState?: unknown }).snapshotState)
  if (existsSync(target) ? update === 'all' : update !== 'none') {
    mkdirSync(dirname(target), { recursive: true })
    copyFileSync(shot, target)
  }
}

/** Every table container of the page whose content is wider than it (it would scroll sideways). */
const overflowing = (page: Page) =>
  page.$$eval('.scroll', (els) =>
    els
      .filter((el) => el.scrollWidth > el.clientWidth)
      .map((el) => `${el.querySelector('table')?.className ?? '?'}: ${el.scrollWidth} > ${el.clientWidth}`),
  )

describe.skipIf(!hasChromium)(
  `HTML report in headless Chromium${hasChromium ? '' : ` (skipped: no ${CHROMIUM}; install it with apt-get install chromium)`}`,
  () => {
    const tmp = mkdtempSync(join(tmpdir(), 'seqk-report-browser-'))
    let summary: RunSummary
    let trajectories: Trajectory[]
    let html = ''
    let context: BrowserContext
    let page: Page
    const consoleErrors: string[] = []
    const foreignRequests: string[] = []
    const reportUrl = pathToFileURL(join(tmp, 'report.html')).href
    const failuresUrl = pathToFileURL(join(tmp, 'failures.html')).href

    beforeAll(async () => {
      // The e2e project's one run of the bundled fixtures eval (test/setup/fixtures-run.ts; other
      // eval files depend on data that may be absent), copied: other files read it too.
      const run = inject('fixturesRun')
      expect(run.status, run.out).toBe(0)
      cpSync(run.dir, join(tmp, 'run'), { recursive: true })
      summary = readSummary(join(tmp, 'run', 'summary.json'))
      trajectories = readTrajectories(join(tmp, 'run', 'trajectories.jsonl')).trajectories
      // An earlier run of the same protocols a day before, so the trend and "since the last run" show.
      const earlier = historyEntries(
        { ...summary, runId: 'earlier', createdAt: new Date(Date.parse(summary.createdAt) - 86_400_000).toISOString() },
        { commit: 'abc1234' },
      ).map((e) => ({
        ...e,
        seqAt: e.seqAt.map((v) => (v === null ? null : v * 0.9)),
        passAt: e.passAt?.map((v) => (v === null ? null : v * 0.95)) ?? null,
      }))
      html = await renderHtmlReport({ summary, trajectories, history: earlier })
      writeFileSync(join(tmp, 'report.html'), html)

      context = await launchChromium(
        join(tmp, 'profile'),
        { width: 1280, height: 900 },
        (url) => url === reportUrl || url === failuresUrl,
        foreignRequests,
      )
      page = context.pages()[0] ?? (await context.newPage())
      page.on('request', (request) => {
        if (request.url() !== reportUrl) foreignRequests.push(request.url())
      })
      page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning')
          consoleErrors.push(`${message.type()}: ${message.text()}`)
      })
      page.on('pageerror', (error) => consoleErrors.push(`pageerror: ${error.message}`))
      await page.goto(reportUrl, { waitUntil: 'load' })
    }, 90_000)

    afterAll(async () => {
      await context?.close()
      rmSync(tmp, { recursive: true, force: true })
    })

    const cells = () => summary.benchmarks[0]!.cells
    const actors = () => new Set(cells().map((c) => c.actorId)).size

    it('loads with no console errors and no request but the file itself', () => {
      expect(consoleErrors).toEqual([])
      expect(foreignRequests).toEqual([])
    })

    it('draws the Seq@k and Pass@k curves: one line and one band per actor in every mode', async () => {
      const modes = await page.$$eval('figure.curves', (figures) => figures.map((f) => f.getAttribute('data-mode')))
      expect(modes).toEqual(['binary', 'verifier', 'independent'])
      for (const mode of modes) {
        const lines = await page.locator(`figure.curves[data-mode="${mode}"] svg .mark-line path`).count()
        const bands = await page.locator(`figure.curves[data-mode="${mode}"] svg .mark-area path`).count()
        expect([mode, lines, bands]).toEqual([mode, actors(), actors()])
        const box = await page.locator(`figure.curves[data-mode="${mode}"] svg`).boundingBox()
        expect(box!.width).toBeGreaterThan(250)
      }
    })

    it('has the rank-change chart, a cost–success chart per protocol with its frontier, and the trend', async () => {
      expect(await page.locator('figure.rank svg .mark-line path').count()).toBe(actors())
      expect(await page.locator('figure.cost svg').count()).toBe(3)
      for (const mode of ['binary', 'verifier', 'independent']) {
        // Per actor a thin line, plus the frontier staircase.
        expect(await page.locator(`figure.cost[data-mode="${mode}"] svg .mark-line path`).count()).toBe(actors() + 1)
      }
      expect(await page.locator('figure.trend svg').count()).toBe(3)
      await expect.poll(() => page.locator('ul.changes li').count()).toBe(cells().length)
    })

    it('has a task × cell grid with every square, in both views', async () => {
      const tasks = cells()[0]!.tasks
      expect(await page.locator('#grid-0 td.gc').count()).toBe(tasks * cells().length)
      expect(await page.locator('#grid-0 td.gc .reps i').count()).toBe(trajectories.length)
      await page.locator('input[data-grid-view="grid-0"][value="repeats"]').check()
      expect(await page.locator('#grid-0').getAttribute('data-view')).toBe('repeats')
      expect(await page.locator('#grid-0 td.gc .reps').first().isVisible()).toBe(true)
      await page.locator('input[data-grid-view="grid-0"][value="average"]').check()
      expect(await page.locator('#grid-0 td.gc .avg').first().isVisible()).toBe(true)
    })

    it('shows a trajectory: attempts, failing tests, feedback and a line diff, and follows the selects', async () => {
      // A verifier-feedback trajectory with a revision whose code changed.
      const code = (a: Trajectory['attempts'][number]) => a.verdict.extracted ?? a.answer
      const target = trajectories.find(
        (t) =>
          t.mode === 'verifier' &&
          t.attempts.length >= 2 &&
          t.attempts[0]!.feedback?.text.includes('Failed test details') &&
          code(t.attempts[0]!) !== code(t.attempts[1]!),
      )!
      expect(target).toBeDefined()
      const cellIndex = cells().findIndex((c) => c.cellId === target.cellId)

      // Start somewhere else, then move there with the selects.
      const other = cells().findIndex((c) => c.mode === 'binary')
      await page.selectOption('#tv-cell', String(other))
      await expect.poll(() => page.locator('#tv-head .tv-title').textContent()).toContain(cells()[other]!.cellId)
      await page.selectOption('#tv-cell', String(cellIndex))
      await page.selectOption('#tv-task', target.taskId)
      await page.selectOption('#tv-repeat', String(target.repeat))
      await expect.poll(() => page.locator('#tv-head .tv-title').textContent()).toContain(target.taskId)
      expect(await page.locator('#tv-attempts article.attempt').count()).toBe(target.attempts.length)
      expect(
        await page.locator('#tv-attempts article.attempt').first().locator('pre.feedback').textContent(),
      ).toContain('Failed test details')
      expect(
        await page.locator('#tv-attempts article.attempt').first().locator('table.tests tbody tr').count(),
      ).toBeGreaterThan(0)

      // The second attempt opens on its diff against the first; every line of it is there (folded or not).
      const second = page.locator('#tv-attempts article.attempt').nth(1)
      const ops = diffLines(code(target.attempts[0]!), code(target.attempts[1]!))
      expect(await second.locator('table.diff tr.eq, table.diff tr.add, table.diff tr.del').count()).toBe(ops.length)
      expect(await second.locator('table.diff tr.add, table.diff tr.del').count()).toBe(
        ops.filter((o) => o.op !== 'equal').length,
      )
      await second.getByRole('tab', { name: 'Answer' }).click()
      expect(await second.locator('.pane-answer').isVisible()).toBe(true)
      expect(await second.locator('.pane-diff').isHidden()).toBe(true)
      expect(await second.getByRole('tab', { name: 'Answer' }).getAttribute('aria-selected')).toBe('true')
      expect(await second.getByRole('tab', { name: /^Diff/ }).getAttribute('aria-selected')).toBe('false')
      expect(await second.locator('.pane-answer pre').textContent()).toBe(target.attempts[1]!.answer)
      await second.getByRole('tab', { name: /^Diff/ }).click()
    })

    it('charts the revision classes of the annotated cells and names the others', async () => {
      const annotated = cells().filter((c) => c.revisionAnnotation)
      expect(annotated.length).toBeGreaterThan(0)
      expect(await page.locator('figure.revision-shares').getAttribute('data-cells')).toBe(String(annotated.length))
      // One segment per class per annotated cell, and a success point per non-empty class.
      expect(await page.locator('figure.revision-shares svg [aria-roledescription="bar"]').count()).toBe(
        3 * annotated.length,
      )
      const nonEmpty = annotated.reduce(
        (n, c) => n + Object.values(c.revisionAnnotation!.classes).filter((k) => k.revisions > 0).length,
        0,
      )
      expect(await page.locator('figure.revision-success svg .mark-symbol path').count()).toBe(nonEmpty)
      for (const c of annotated)
        expect(await page.locator(`table.revision-classes tr[data-cell="${c.cellId}"]`).count()).toBe(1)
      expect(await page.locator('figure.revision-shares').textContent()).toContain('annotator derived/1')
      expect(await page.locator('[data-unannotated]').textContent()).toContain('binary feedback names no request')
    })

    it("shows each revision's class and the requests it satisfied on its attempt", async () => {
      const cell = cells().find(
        (c) =>
          c.revisionAnnotation &&
          c.revisionAnnotation.classes.some.revisions + c.revisionAnnotation.classes.all.revisions > 0,
      )!
      const index = cells().indexOf(cell)
      const target = trajectories.find(
        (t) =>
          t.cellId === cell.cellId && t.attempts.length >= 2 && (t.attempts[0]!.feedback?.requests?.length ?? 0) > 0,
      )!
      await page.selectOption('#tv-cell', String(index))
      await page.selectOption('#tv-task', target.taskId)
      await page.selectOption('#tv-repeat', String(target.repeat))
      await expect.poll(() => page.locator('#tv-head .tv-title').textContent()).toContain(target.taskId)
      const requests = target.attempts[0]!.feedback!.requests!
      const satisfied = requests.filter(
        (r) => target.attempts[1]!.verdict.diagnostics.tests?.find((t) => `test:${t.index}` === r)?.pass === true,
      )
      const expected = satisfied.length === 0 ? 'unhelpful' : satisfied.length === requests.length ? 'all' : 'some'
      const second = page.locator('#tv-attempts article.attempt').nth(1)
      expect(await second.locator('header .revision-class').getAttribute('data-class')).toBe(expected)
      expect(await second.locator('header .revision-class').textContent()).toContain(
        `(${satisfied.length} of ${requests.length})`,
      )
      expect(await second.locator('ul.requests li').count()).toBe(requests.length)
      expect(await second.locator('ul.requests li[data-state="satisfied"]').count()).toBe(satisfied.length)
      expect(await second.locator('.side h4').first().textContent()).toContain('(derived/1)')
      // The first attempt answers no feedback: no class.
      expect(await page.locator('#tv-attempts article.attempt').first().locator('.revision-class').count()).toBe(0)
    })

    it('shows the reliability section as summary.json says: Cover@τ lines, figures, strips and the four numbers', async () => {
      const section = page.locator('#bench-0')
      // A step line per cell that measured a task.
      const measured = cells().filter((c) => (c.reliability?.tries ?? 0) > 0)
      expect(measured.length).toBe(cells().length)
      expect(await section.locator('figure.cover').getAttribute('data-lines')).toBe(String(measured.length))
      expect(await section.locator('figure.cover svg .mark-line path').count()).toBe(measured.length)
      expect((await section.locator('figure.cover svg').boundingBox())!.width).toBeGreaterThan(250)
      for (const cell of cells()) {
        const r = cell.reliability!
        const row = section.locator(`table.reliability tr[data-cell="${cell.cellId}"]`)
        const at = (tau: number) => r.coverAt.find((c) => c.tau === tau)!.interval
        const text = (i: { point: number | null; lo: number | null; hi: number | null }) =>
          `${percent(i.point)} ${percent(i.lo)}–${percent(i.hi)}`
        expect(await row.locator('[data-figure="cover50"]').textContent()).toBe(text(at(0.5)))
        expect(await row.locator('[data-figure="cover100"]').textContent()).toBe(text(at(1)))
        expect(await row.locator('[data-figure="hat"]').textContent()).toBe(text(r.hatInterval))
        expect(await row.locator('[data-figure="consistency"]').textContent()).toBe(text(r.outcome.mean))
        // The strip: a square per task, its always share Cover@1, its sometimes share the inconsistent share.
        const strip = section.locator(`tr.strip[data-cell="${cell.cellId}"]`)
        expect(await strip.locator('.squares i').count()).toBe(cell.tasks)
        const count = async (k: string) => Number(await strip.getAttribute(`data-${k}`))
        const tasks = cell.tasks - (await count('unknown'))
        expect((await count('always')) / tasks).toBeCloseTo(at(1).point!, 9)
        expect((await count('sometimes')) / tasks).toBeCloseTo(r.outcome.inconsistent.point!, 9)
        expect(await strip.locator('.squares i.always').count()).toBe(await count('always'))
        expect(await strip.locator('.squares i').first().isVisible()).toBe(true)
      }
      // The four numbers: one row per actor, each as summary.json holds it.
      const rows = fourNumbers(cells())
      expect(await section.locator('table.four-numbers tbody tr').count()).toBe(actors())
      for (const f of rows) {
        const row = section.locator(`table.four-numbers tr[data-actor="${f.actorId}"]`)
        const independent = cells().find((c) => c.actorId === f.actorId && c.protocol.kind === 'independent')!
        const K = independent.budget
        expect(await row.locator('[data-four="single"]').textContent()).toBe(percent(independent.passAt![0]))
        expect(await row.locator('[data-four="passAtK"]').textContent()).toMatch(
          new RegExp(`^${percent(independent.passAt![K - 1])} `),
        )
        expect(await row.locator('[data-four="passHatK"]').textContent()).toMatch(
          new RegExp(`^${percent(independent.passHat![K - 1])} `),
        )
        for (const seq of cells().filter((c) => c.actorId === f.actorId && c.protocol.kind === 'sequential'))
          expect(await row.locator(`[data-four="seq-${seq.mode}"]`).textContent()).toMatch(
            new RegExp(`^${percent(seq.seqAt[seq.budget - 1])} `),
          )
      }
    })

    it('opens the trajectory of a grid square on click', async () => {
      const cell = cells().find((c) => c.mode === 'independent')!
      const index = cells().indexOf(cell)
      const task = cell.perTask[3]!.taskId
      await page.locator(`#grid-0 td.gc[data-gc="${index}"][data-t="${task}"]`).click()
      expect(await page.locator('#tv-cell').inputValue()).toBe(String(index))
      expect(await page.locator('#tv-task').inputValue()).toBe(task)
      expect(await page.locator('#tv-attempts article.attempt').count()).toBeGreaterThan(0)
    })

    it('opens the trajectory of a grid square from the keyboard', async () => {
      const cell = cells().find((c) => c.mode === 'binary')!
      const index = cells().indexOf(cell)
      const task = cell.perTask[1]!.taskId
      await page.locator(`#grid-0 td.gc[data-gc="${index}"][data-t="${task}"]`).focus()
      await page.keyboard.press('Enter')
      expect(await page.locator('#tv-cell').inputValue()).toBe(String(index))
      expect(await page.locator('#tv-task').inputValue()).toBe(task)
      expect(await page.locator('#tv-head .tv-title').textContent()).toContain(cell.cellId)
    })

    it('fits its tables in 1280 px: the protocol is in a details row under each cell, not a column', async () => {
      await page.setViewportSize({ width: 1280, height: 900 })
      expect(await overflowing(page)).toEqual([])
      expect(await page.locator('table.main th', { hasText: /^protocol$/ }).count()).toBe(0)
      const first = cells()[0]!
      const details = page.locator(`#bench-0 tr.detail[data-detail="${first.cellId}"] details.proto`)
      expect(await details.locator('> .chips').isVisible()).toBe(false)
      await details.locator('summary').click()
      expect(await details.locator('> .chips').textContent()).toContain(`fp ${first.fingerprint}`)
      expect(await details.locator('> .chips').isVisible()).toBe(true)
      await details.locator('summary').click()
    })

    it("names each cell's benchmark in the viewer's cell list and title", async () => {
      const name = summary.benchmarks[0]!.name
      const options = await page.locator('#tv-cell option').allTextContents()
      expect(options).toEqual(cells().map((c) => `${c.cellId} — ${name}`))
      expect(await page.locator('#tv-head .tv-title').textContent()).toContain(name)
    })

    it('takes full-page screenshots at 1280 and 390 px under 2.5 MB (kept in the repository like snapshots)', async () => {
      for (const [width, name] of [
        [1280, 'report.png'],
        [390, 'report-390.png'],
      ] as const) {
        await page.setViewportSize({ width, height: 900 })
        // Back to the verifier trajectory the report opens with, at the top of the page.
        await page.goto(reportUrl, { waitUntil: 'load' })
        // Nothing sticks out of the page sideways on a phone either: wide tables scroll in their card.
        expect(Number(await page.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(width)
        const shot = join(tmp, name)
        await page.screenshot({ path: shot, fullPage: true })
        // The whole bundled report (four actors, the reliability section) is 1.7 MB at 1280 px.
        expect(statSync(shot).size).toBeLessThan(2.5 * 1024 * 1024)
        keepScreenshot(shot, name)
      }
      await page.setViewportSize({ width: 1280, height: 900 })
      expect(consoleErrors).toEqual([])
      expect(foreignRequests).toEqual([])
    })

    describe('a run that goes wrong', () => {
      // Benchmark 0: sim:quick's every trajectory errors, sim:careful misses a threshold; benchmark 1:
      // a server that reports no usage (and no price). The same cell ids in both.
      const failing = fakeRun({
        benchmark: 'failing fixture',
        thresholds: (actor, mode) =>
          mode === 'independent'
            ? { passAt: { 4: 0.3 } }
            : actor === 'sim:careful'
              ? { seqAt: { 1: 0.99 } as Record<number, number> }
              : { seqAt: { 4: 0.3 } },
        errorFor: (_task, _r, actor) => (actor === 'sim:quick' ? 'connect ECONNREFUSED 127.0.0.1:9' : undefined),
      })
      const free = fakeRun({ benchmark: 'no-usage fixture', usage: false, costPerAttempt: null })
      const run = { ...failing.summary, benchmarks: [...failing.summary.benchmarks, ...free.summary.benchmarks] }
      let fpage: Page

      beforeAll(async () => {
        writeFileSync(
          join(tmp, 'failures.html'),
          await renderHtmlReport({ summary: run, trajectories: [...failing.trajectories, ...free.trajectories] }),
        )
        fpage = await context.newPage()
        fpage.on('console', (message) => {
          if (message.type() === 'error' || message.type() === 'warning')
            consoleErrors.push(`${message.type()}: ${message.text()}`)
        })
        fpage.on('pageerror', (error) => consoleErrors.push(`pageerror: ${error.message}`))
        await fpage.goto(failuresUrl, { waitUntil: 'load' })
      }, 60_000)

      const row = (bench: number, cellId: string) => fpage.locator(`#bench-${bench} tr.cell[data-cell="${cellId}"]`)
      const detail = (bench: number, cellId: string) =>
        fpage.locator(`#bench-${bench} tr.detail[data-detail="${cellId}"]`)

      it("shows a failed cell's reason as text right under its row, not only in a tooltip", async () => {
        const reason = detail(0, 'sim:careful · binary').locator('li.fail')
        expect(await reason.count()).toBe(1)
        expect(await reason.isVisible()).toBe(true)
        expect(await reason.textContent()).toMatch(/^✗ Seq@1 = [\d.]+%, below the required 99\.0%/)
        expect(await row(0, 'sim:careful · binary').locator('.badge').textContent()).toBe('fail (1)')
        // Next to the cell: the reason starts where its row ends, and belongs to no other row.
        const [rowBox, reasonBox] = [await row(0, 'sim:careful · binary').boundingBox(), await reason.boundingBox()]
        expect(reasonBox!.y - (rowBox!.y + rowBox!.height)).toBeGreaterThanOrEqual(-1)
        expect(reasonBox!.y - (rowBox!.y + rowBox!.height)).toBeLessThan(8)
        // A passing cell says nothing but its protocol.
        expect(await detail(0, 'sim:careful · independent').locator('ul.reasons').count()).toBe(0)
      })

      it('shows why an all-errors cell measured nothing, and the error itself', async () => {
        const lines = detail(0, 'sim:quick · verifier').locator('ul.reasons li')
        const texts = await lines.allTextContents()
        expect(texts[0]).toMatch(/^✗ all 10 trajectories ended in an error, so nothing was measured/)
        expect(texts[1]).toBe(
          '⚠ actor failed at attempt 1: connect ECONNREFUSED 127.0.0.1:9 (t/1 repeat 0, t/1 repeat 1, t/2 repeat 0, t/2 repeat 1, t/3 repeat 0)',
        )
        expect(texts[2]).toBe('5 more errors (the summary keeps 5 examples)')
        for (let i = 0; i < texts.length; i++) expect(await lines.nth(i).isVisible()).toBe(true)
        expect(await row(0, 'sim:quick · verifier').locator('td.warn').textContent()).toBe('10')
      })

      it('says there is no cost to chart for a server that reports no usage, and draws no cost chart', async () => {
        const sentence = fpage.locator('#bench-1 [data-nothing="cost"]')
        expect(await sentence.isVisible()).toBe(true)
        expect(await sentence.textContent()).toContain(
          'Every cost is 0: the models have no price and the server reported no token usage',
        )
        expect(await fpage.locator('#bench-1 figure.cost').count()).toBe(0)
        // The benchmark with costs still has its charts; sim:quick, which measured nothing, has no point in them.
        expect(await fpage.locator('#bench-0 figure.cost svg').count()).toBe(3)
        expect(await fpage.locator('#bench-0 figure.cost svg .mark-symbol path[aria-label^="sim:quick"]').count()).toBe(
          0,
        )
      })

      it('says unknown, never 0, in the reliability section for a cell that measured nothing', async () => {
        for (const mode of ['binary', 'verifier', 'independent']) {
          const id = `sim:quick · ${mode}`
          const row = fpage.locator(`#bench-0 table.reliability tr[data-cell="${id}"]`)
          for (const f of ['cover50', 'cover100', 'hat', 'consistency', 'inconsistent'])
            expect(await row.locator(`[data-figure="${f}"]`).textContent()).toBe('unknown')
          const strip = fpage.locator(`#bench-0 tr.strip[data-cell="${id}"]`)
          expect(await strip.locator('.squares i.unknown').count()).toBe(await strip.locator('.squares i').count())
        }
        const four = fpage.locator('#bench-0 table.four-numbers tr[data-actor="sim:quick"] td.n')
        expect(new Set(await four.allTextContents())).toEqual(new Set(['unknown']))
        // sim:quick draws no Cover@τ line; the others do.
        const cells0 = run.benchmarks[0]!.cells
        const lines = fpage.locator('#bench-0 figure.cover')
        expect(await lines.getAttribute('data-lines')).toBe(
          String(cells0.filter((c) => c.actorId !== 'sim:quick').length),
        )
        expect(await lines.locator('ul.legend').textContent()).toContain('unknown: no task measured')
      })

      it('names the benchmark of cells that share an id', async () => {
        const options = await fpage.locator('#tv-cell option').allTextContents()
        expect(options.filter((o) => o.startsWith('sim:careful · binary'))).toEqual([
          'sim:careful · binary — failing fixture',
          'sim:careful · binary — no-usage fixture',
        ])
        const second =
          run.benchmarks[0]!.cells.length +
          run.benchmarks[1]!.cells.findIndex((c) => c.cellId === 'sim:careful · binary')
        await fpage.selectOption('#tv-cell', String(second))
        await expect.poll(() => fpage.locator('#tv-head .tv-title').textContent()).toContain('no-usage fixture')
      })

      it('fits 1280 px, keeps the reasons in view at 390 px, and is kept as screenshots', async () => {
        await fpage.setViewportSize({ width: 1280, height: 900 })
        expect(await overflowing(fpage)).toEqual([])
        // The benchmarks only (the viewer is in report.png): what a run that went wrong looks like.
        const viewer = await fpage.locator('#trajectories').boundingBox()
        const shot = join(tmp, 'report-failures.png')
        await fpage.screenshot({
          path: shot,
          fullPage: true,
          clip: {
            x: 0,
            y: 0,
            width: 1280,
            height: Math.ceil(viewer!.y + ((await fpage.evaluate('window.scrollY')) as number)),
          },
        })
        // 2 MiB: the benchmarks now also hold the equal-cost charts and the statistics tables (1.8 MiB).
        expect(statSync(shot).size).toBeLessThan(2 * 1024 * 1024)
        keepScreenshot(shot, 'report-failures.png')
        await fpage.setViewportSize({ width: 390, height: 900 })
        expect(Number(await fpage.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(390)
        // The table scrolls in its card; its reasons wrap within the screen instead of running off it.
        const reason = detail(0, 'sim:quick · binary').locator('li.fail')
        const box = await reason.boundingBox()
        expect(box!.x).toBeGreaterThanOrEqual(0)
        expect(box!.x + box!.width).toBeLessThanOrEqual(390)
        const narrow = join(tmp, 'report-failures-390.png')
        await fpage.screenshot({ path: narrow, fullPage: true })
        expect(statSync(narrow).size).toBeLessThan(2 * 1024 * 1024)
        expect(consoleErrors).toEqual([])
        expect(foreignRequests).toEqual([])
      })
    })
  },
  120_000,
)
