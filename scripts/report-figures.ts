// The report's figures at scale: report.html's size for a run directory (e.g. the 100 000
// trajectories of scripts/big-run.ts), rendered with the reporter's own function, and how long
// headless Chromium takes to load it until the trajectory viewer shows its first attempt.
//
//   npx tsx scripts/report-figures.ts /tmp/big-run
import { statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { readSummary } from '../src/artifacts/summary-file.js'
import { readTrajectories } from '../src/artifacts/trajectories-file.js'
import { runReportHtml } from '../src/report/views.js'
import { CHROMIUM, hasChromium } from '../test/browser.js'

const [dir = '/tmp/big-run'] = process.argv.slice(2)
const summary = readSummary(join(dir, 'summary.json'))
const { trajectories } = readTrajectories(join(dir, 'trajectories.jsonl'))
const t0 = performance.now()
const html = await runReportHtml(summary, trajectories)
const renderMs = performance.now() - t0
const file = join(dir, 'report.html')
writeFileSync(file, html)
const figures: Record<string, number> = {
  trajectories: trajectories.length,
  bytes: statSync(file).size,
  renderMs: Math.round(renderMs),
}
if (hasChromium) {
  const { chromium } = await import('playwright-core')
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  })
  // A fresh browser's first page (cold), then the same page again (warm).
  for (const name of ['coldLoadMs', 'warmLoadMs']) {
    const page = await browser.newPage()
    const started = performance.now()
    await page.goto(`file://${file}`, { waitUntil: 'load', timeout: 120_000 })
    await page.waitForSelector('#tv-attempts .attempt', { timeout: 120_000 })
    figures[name] = Math.round(performance.now() - started)
    await page.close()
  }
  await browser.close()
}
process.stdout.write(`${JSON.stringify(figures)}\n`)
