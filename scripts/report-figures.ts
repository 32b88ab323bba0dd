// The report's figures at scale: report.html's size for a run directory (e.g. the 100 000
// trajectories of scripts/big-run.ts), rendered with the reporter's own function, the process's
// peak memory, and how long the browser tests' headless Chromium (test/browser.ts, every request
// outside the page refused) takes to load it until the trajectory viewer shows its first attempt.
// The page must tell the summary's story: every cell's row with the verdict every output gives it.
// Prints one JSON line (test/report-live-scale.bench.ts reads it).
//
//   npx tsx scripts/report-figures.ts /tmp/big-run
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readSummary } from '../src/artifacts/summary-file.js'
import { readTrajectories } from '../src/artifacts/trajectories-file.js'
import { verdictValue } from '../src/report/columns.js'
import { runReportHtml } from '../src/report/views.js'
import { hasChromium, launchChromium } from '../test/browser.js'

const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10
const [dir = '/tmp/big-run'] = process.argv.slice(2)
const t0 = performance.now()
const summary = readSummary(join(dir, 'summary.json'))
const { trajectories } = readTrajectories(join(dir, 'trajectories.jsonl'))
const readMs = performance.now() - t0
const rssAfterReadMb = mb(process.memoryUsage().rss)
const t1 = performance.now()
const cpu1 = process.cpuUsage()
const html = await runReportHtml(summary, trajectories)
const renderMs = performance.now() - t1
// On a loaded machine the wall time is mostly waiting for a core: the CPU spent is the steadier figure.
const { user, system } = process.cpuUsage(cpu1)
const file = join(dir, 'report.html')
writeFileSync(file, html)
const figures: Record<string, number | string> = {
  trajectories: trajectories.length,
  bytes: statSync(file).size,
  readMs: Math.round(readMs),
  renderMs: Math.round(renderMs),
  renderCpuMs: Math.round((user + system) / 1000),
  rssAfterReadMb,
  maxRssMb: mb(process.resourceUsage().maxRSS * 1024),
}
if (hasChromium) {
  const expected = summary.benchmarks.flatMap((b) => b.cells.map((c) => `${c.cellId}: ${verdictValue(c).text}`))
  const profile = mkdtempSync(join(tmpdir(), 'seqk-report-figures-'))
  const foreign: string[] = []
  const context = await launchChromium(
    profile,
    { width: 1280, height: 900 },
    (url) => url.startsWith('file://') || url.startsWith('data:'),
    foreign,
  )
  try {
    // A fresh browser's first page (cold), then the same page again (warm).
    for (const name of ['cold', 'warm']) {
      const page = await context.newPage()
      const cdp = await context.newCDPSession(page)
      await cdp.send('Performance.enable')
      const started = performance.now()
      await page.goto(`file://${file}`, { waitUntil: 'load', timeout: 120_000 })
      const loadMs = performance.now() - started
      await page.waitForSelector('#tv-attempts .attempt', { timeout: 120_000 })
      figures[`${name}ViewerMs`] = Math.round(performance.now() - started)
      figures[`${name}LoadMs`] = Math.round(loadMs)
      // A string, as the browser tests pass it: this file is typed for Node, not the DOM.
      const inPage = (await page.evaluate(`({
        fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1,
        cells: [...document.querySelectorAll('table.cells.main tr.cell')].map(
          (tr) => tr.getAttribute('data-cell') + ': ' + (tr.querySelector('.badge')?.textContent ?? '?'),
        ),
      })`)) as { fcp: number; cells: string[] }
      figures[`${name}FirstPaintMs`] = Math.round(inPage.fcp)
      // Chromium's own counters: the page's JS heap, and where its main thread spent the time.
      const { metrics } = await cdp.send('Performance.getMetrics')
      const metric = (m: string) => metrics.find((x) => x.name === m)?.value ?? -1
      figures[`${name}JsHeapMb`] = mb(metric('JSHeapUsedSize'))
      for (const [key, m] of [
        ['ScriptMs', 'ScriptDuration'],
        ['LayoutMs', 'LayoutDuration'],
        ['StyleMs', 'RecalcStyleDuration'],
      ] as const)
        figures[`${name}${key}`] = Math.round(metric(m) * 1000)
      figures[`${name}Nodes`] = metric('Nodes')
      const shown = inPage.cells.join('\n')
      if (shown !== expected.join('\n'))
        throw new Error(`report.html's cell rows are not the summary's:\n${shown}\nexpected\n${expected.join('\n')}`)
      await page.close()
    }
    if (foreign.length > 0) throw new Error(`report.html asked for ${foreign.join(', ')}`)
  } finally {
    await context.close()
    rmSync(profile, { recursive: true, force: true })
  }
  figures.cellsChecked = expected.length
}
process.stdout.write(`${JSON.stringify(figures)}\n`)
