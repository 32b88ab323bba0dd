/**
 * The README's live-view screenshot, as the bundled evals produce it: serves `<dir>/runs` with the
 * live view (the server `seqk view` starts), runs `npm run evals`' Vitest command into that runs
 * directory, and takes a headless-Chromium screenshot of the page while the run is in progress
 * (`docs/live-view.png`). The evals' terminal output is kept beside it (`<dir>/evals-output.txt`),
 * so the README's table comes from the same run.
 *
 *   npx tsx scripts/live-view-screenshot.ts [dir = /tmp/evals-doc] [png = docs/live-view.png]
 *
 * Copy `.seqk/history.jsonl` into `<dir>` first for the history lines a real project prints.
 * Needs /usr/bin/chromium (as the browser tests do).
 */
import { spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { startLiveServer } from '../src/report/live/server.js'
import { launchChromium } from '../test/browser.js'

const dir = resolve(process.argv[2] ?? '/tmp/evals-doc')
const png = resolve(process.argv[3] ?? 'docs/live-view.png')
const runs = join(dir, 'runs')
mkdirSync(runs, { recursive: true })
mkdirSync(dirname(png), { recursive: true })

const server = await startLiveServer({ target: runs, port: 0, pollMs: 200 })
const foreign: string[] = []
const context = await launchChromium(
  join(dir, 'chromium-profile'),
  { width: 1280, height: 900 },
  (url) => url.startsWith(server.url),
  foreign,
)
const page = context.pages()[0] ?? (await context.newPage())
await page.goto(server.url, { waitUntil: 'load' })

let output = ''
const evals = spawn('npx', ['vitest', 'run', '--project', 'evals'], {
  env: {
    ...process.env,
    SEQK_OUTPUT_DIR: runs,
    SEQK_HISTORY_FILE: join(dir, 'history.jsonl'),
    NO_COLOR: '1',
    CI: 'true',
  },
  stdio: ['ignore', 'pipe', 'pipe'],
})
evals.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
evals.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
const exited = new Promise<number | null>((done) => evals.on('close', (code) => done(code)))

// Mid-run: several cells on the page, some finished, the run still going.
let shot = false
let ended = false
void exited.then(() => (ended = true))
while (!ended && !shot) {
  await new Promise((done) => setTimeout(done, 250))
  const state = (await page.locator('#live-state').textContent()) ?? ''
  const rows = await page.locator('#live-cells tr[data-cell]').count()
  const counts = /(\d+) of (\d+)/.exec(state)
  if (state.startsWith('running') && rows >= 10 && counts && Number(counts[1]) >= Number(counts[2]) * 0.4) {
    await page.screenshot({ path: png, fullPage: false })
    shot = true
    console.log(`live-view-screenshot: ${png} at "${state}", ${rows} cells`)
  }
}
const code = await exited
writeFileSync(join(dir, 'evals-output.txt'), output)
await context.close()
await server.close()
if (!shot) throw new Error('the run ended before the page showed it mid-run: no screenshot')
if (foreign.length > 0) throw new Error(`the page asked for something beyond the server: ${foreign.join(', ')}`)
console.log(`live-view-screenshot: evals exited ${code}; output in ${join(dir, 'evals-output.txt')}`)
