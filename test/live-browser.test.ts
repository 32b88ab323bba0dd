// The live view (`seqk view`) in headless Chromium while a run is in progress: the test appends
// the lines a run writes and watches the page follow (progress, an error's message, the latest
// trajectories, a malformed line), then writes summary.json and report.html and follows the link
// to the report; then a new run directory appears and the page switches to it. Keeps a screenshot
// of the page mid-run (test/__screenshots__/live.png, like report.png: written when missing,
// refreshed by `vitest -u`).
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { CHROMIUM, hasChromium, launchChromium } from './browser.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startLiveServer, type LiveServer } from '../src/report/live/server.js'
import { renderHtmlReport } from '../src/report/html.js'
import { updateMode } from '../src/vitest/baseline.js'
import { line, liveCell } from './live-fixtures.js'
import { fakeRun } from './report-fixtures.js'

const SCREENSHOT = join(new URL('..', import.meta.url).pathname, 'test/__screenshots__/live.png')

describe.skipIf(!hasChromium)(
  `the live view in headless Chromium${hasChromium ? '' : ` (skipped: no ${CHROMIUM})`}`,
  () => {
    const tmp = mkdtempSync(join(tmpdir(), 'seqk-live-browser-'))
    const runs = join(tmp, 'runs')
    const dir = join(runs, '20261201-101500-9f2c4a')
    const cell = liveCell({ runId: '20261201-101500-9f2c4a', tasks: ['task-1', 'task-2', 'task-3'], repeats: 2 })
    const other = liveCell({
      runId: '20261201-101500-9f2c4a',
      cellId: 'sim:quick · verifier',
      tasks: ['task-1', 'task-2'],
    })
    let server: LiveServer
    let context: BrowserContext
    let page: Page
    const consoleErrors: string[] = []
    const foreignRequests: string[] = []
    const append = (file: string, record: unknown) => appendFileSync(join(dir, file), line(record))

    beforeAll(async () => {
      mkdirSync(dir, { recursive: true })
      writeFileSync(join(dir, 'cells.jsonl'), line(cell.start))
      server = await startLiveServer({ target: runs, port: 0, pollMs: 100 })
      context = await launchChromium(
        join(tmp, 'profile'),
        { width: 1280, height: 800 },
        (url) => url.startsWith(server.url),
        foreignRequests,
      )
      page = context.pages()[0] ?? (await context.newPage())
      page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning')
          consoleErrors.push(`${message.type()}: ${message.text()}`)
      })
      page.on('pageerror', (error) => consoleErrors.push(`pageerror: ${error.message}`))
      await page.goto(server.url, { waitUntil: 'load' })
    }, 60_000)

    afterAll(async () => {
      await context?.close()
      await server?.close()
      rmSync(tmp, { recursive: true, force: true })
    })

    const row = (cellId: string) => page.locator(`#live-cells tr[data-cell="${cellId}"]`)

    it('shows the running run and its cell at 0 of 6', async () => {
      await expect.poll(() => page.locator('#live-state').textContent()).toBe('running · 0 of 6 trajectories')
      expect(await page.locator('#live-run').textContent()).toContain('run 20261201-101500-9f2c4a')
      expect(await row(cell.start.cellId).locator('.progress .count').textContent()).toBe('0/6')
    })

    it('counts trajectories as they finish and shows an error message as it happens, as text', async () => {
      append('trajectories.jsonl', cell.trajectory('task-1', 0, 'solved'))
      await expect.poll(() => row(cell.start.cellId).locator('.progress .count').textContent()).toBe('1/6')
      append('trajectories.jsonl', cell.trajectory('task-1', 1, 'failed'))
      append(
        'trajectories.jsonl',
        cell.trajectory('task-2', 0, 'error', '<b>HTTP 503</b> from https://api.example/v1 after 4 retries'),
      )
      await expect.poll(() => row(cell.start.cellId).locator('.progress .count').textContent()).toBe('3/6')
      expect(await row(cell.start.cellId).locator('td.solved').textContent()).toBe('1')
      expect(await row(cell.start.cellId).locator('td.failed').textContent()).toBe('1')
      expect(await row(cell.start.cellId).locator('td.errored').textContent()).toBe('1')
      // Model and endpoint text is shown as text, never markup.
      expect(await page.locator('#live-errors .live-error-message').first().textContent()).toBe(
        '<b>HTTP 503</b> from https://api.example/v1 after 4 retries',
      )
      expect(await page.locator('#live-errors b').count()).toBe(0)
      expect(await page.locator('#live-trajectories li').count()).toBe(3)
      expect(await page.locator('#live-trajectories li').first().getAttribute('data-status')).toBe('error')
      expect(await page.locator('#live-state').textContent()).toBe('running · 3 of 6 trajectories')
    })

    it("pages a cell's trajectories on demand", async () => {
      await row(cell.start.cellId).locator('button[data-page]').click()
      await expect.poll(() => page.locator(`tr[data-page-of] li`).count()).toBe(3)
      expect(await page.locator('tr[data-page-of] p.muted').textContent()).toBe('3 of 3 trajectories')
      await row(cell.start.cellId).locator('button[data-page]').click()
      await expect.poll(() => page.locator('tr[data-page-of]').count()).toBe(0)
    })

    it('is rendered on the server with the state at request time (a page without script, or before any event, shows the run)', async () => {
      const response = await context.request.get(server.url)
      const body = await response.text()
      expect(body).toContain('>running · 3 of 6 trajectories</span>')
      expect(body).toContain('<span class="count">3/6</span>')
    })

    it('adds a cell that starts, reports a malformed line and keeps going', async () => {
      append('cells.jsonl', other.start)
      appendFileSync(join(dir, 'trajectories.jsonl'), '{"schema":"seqk.trajectory/1","status":"???"}\n')
      append('trajectories.jsonl', other.trajectory('task-1', 0, 'solved'))
      await expect.poll(() => row(other.start.cellId).locator('.progress .count').textContent()).toBe('1/2')
      expect(await page.locator('#live-malformed li').count()).toBe(1)
      expect(await page.locator('#live-malformed li').textContent()).toContain(
        'trajectories.jsonl:4: not a seqk trajectory',
      )
      expect(await page.locator('#live-state').textContent()).toBe('running · 4 of 8 trajectories')
    })

    it("shows a batched actor's batches and updates a batch in place as its status changes", async () => {
      append('batches.jsonl', {
        schema: 'seqk.batch/1',
        provider: 'OpenAI',
        batchId: 'batch_live_1',
        items: [
          { customId: 'a', key: 'k' },
          { customId: 'b', key: 'l' },
        ],
        submittedAt: '2026-12-01T10:15:00.000Z',
      })
      await expect
        .poll(() => page.locator('#live-batches li[data-batch="batch_live_1"]').textContent())
        .toContain('submitted, 2 requests · OpenAI batch batch_live_1')
      append('batches.jsonl', {
        schema: 'seqk.batch-status/1',
        provider: 'OpenAI',
        batchId: 'batch_live_1',
        status: 'in_progress',
        done: 1,
        total: 2,
        at: '2026-12-01T10:15:02.000Z',
      })
      await expect
        .poll(() => page.locator('#live-batches li[data-batch="batch_live_1"]').textContent())
        .toContain('in progress 1/2')
      expect(await page.locator('#live-batches li').count()).toBe(1)
    })

    it('keeps a screenshot of the page mid-run', async () => {
      const shot = join(tmp, 'live.png')
      await page.screenshot({ path: shot, fullPage: true })
      const update = updateMode((expect.getState() as unknown as { snapshotState?: unknown }).snapshotState)
      if (existsSync(SCREENSHOT) ? update === 'all' : update !== 'none') {
        mkdirSync(dirname(SCREENSHOT), { recursive: true })
        copyFileSync(shot, SCREENSHOT)
      }
    })

    it('says the run ended once summary.json is written, then links the report and serves it', async () => {
      append('cells.jsonl', cell.end(2300))
      writeFileSync(join(dir, 'summary.json'), '{}\n')
      await expect.poll(() => page.locator('#live-ended').textContent()).toContain('The run ended.')
      expect(await page.locator('#live-state').textContent()).toBe('run ended')
      expect(await row(cell.start.cellId).locator('td.state').textContent()).toBe('ended in 2.3 s')
      const { summary, trajectories } = fakeRun({ runId: '20261201-101500-9f2c4a' })
      writeFileSync(join(dir, 'report.html'), await renderHtmlReport({ summary, trajectories }))
      await page.locator('#live-report-link').click({ timeout: 5000 })
      await page.waitForURL(`${server.url}report`)
      await expect.poll(() => page.locator('h1').first().textContent()).toContain('Seq@K report')
      // The report's own script runs under the header the server adds.
      await expect.poll(() => page.locator('#tv-attempts .attempt').count()).toBeGreaterThan(0)
    })

    it('switches to a new run directory when one appears', async () => {
      await page.goto(server.url, { waitUntil: 'load' })
      await expect.poll(() => page.locator('#live-state').textContent()).toBe('run ended')
      const next = join(runs, '20261201-120000-aaaaaa')
      mkdirSync(next)
      writeFileSync(join(next, 'cells.jsonl'), line(liveCell({ runId: '20261201-120000-aaaaaa' }).start))
      await expect.poll(() => page.locator('#live-run').textContent()).toContain('run 20261201-120000-aaaaaa')
      expect(await page.locator('#live-cells tr').count()).toBe(1)
      expect(await page.locator('#live-ended').count()).toBe(0)
      expect(await page.locator('#live-state').textContent()).toBe('running · 0 of 2 trajectories')
    })

    it('loaded nothing but its own routes and logged no error', () => {
      expect(foreignRequests).toEqual([])
      expect(consoleErrors).toEqual([])
    })
  },
  90_000,
)
