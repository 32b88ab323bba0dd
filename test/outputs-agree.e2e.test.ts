// Every output of one run tells the same story: a scratch project with an eval file that does not
// parse, a cell with no thresholds, a baseline gate that fails, a cell skipped (a model without a
// key), a cell whose every trajectory errored, and an OpenAI-compatible server that sends no
// `usage`, run by the real Vitest CLI. The terminal, Vitest's own result (its JSON reporter),
// summary.json, pr-comment.md, the GitHub step summary and annotations, report.html, the live view
// and `seqk export --format junit` must name the same cells with the same verdicts and counts (each
// failed check once), the broken file as a failed entry, the skipped cell as not run, and "unknown"
// tokens, never zero; no printed line exceeds 120 columns; and a failed threshold's stack points at
// the eval file's seqEval line.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import MarkdownIt from 'markdown-it'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readSummary } from '../src/artifacts/summary-file.js'
import { firstLine } from '../src/artifacts/plan-file.js'
import type { RunSummary } from '../src/core/schemas.js'
import { cellVerdict, runCountsText, summaryVerdict } from '../src/protocol/verdict.js'
import { LiveRun } from '../src/report/live/live-run.js'
import { liveView } from '../src/report/live/view.js'
import { xmlEscape } from '../src/report/junit.js'
import {
  cleanEnv,
  fixtureProject,
  PACKAGE,
  runNode,
  SAYS_CORRECT_SOURCE,
  SEQK,
  SEQK_ALIAS,
  VITEST,
} from './fixture-project.js'
import { HAS_XMLLINT, xmllintJunit } from './export-schemas.js'

/** A chat-completions server that answers CORRECT and reports no usage, as some compatible servers do. */
function noUsageServer(): Promise<Server> {
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          id: 'c1',
          object: 'chat.completion',
          created: 0,
          model: 'quiet',
          choices: [{ index: 0, message: { role: 'assistant', content: 'CORRECT' }, finish_reason: 'stop' }],
        }),
      )
    })
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}

const EVAL = (
  baseURL: string,
) => `import { actors, feedback, seqEval, type ChatModel, type Verifier } from 'vitest-seqk'
const verifier: Verifier = { name: 'says-correct', version: '1', settings: {}, async verify(_t, answer) { const pass = answer.includes('CORRECT'); return { pass, diagnostics: { outcome: pass ? 'passed' : 'failed', summary: pass ? 'ok' : 'say CORRECT' } } } }
const tasks = Array.from({ length: 16 }, (_, i) => ({ id: 't' + String(i).padStart(2, '0'), prompt: 'Say CORRECT. #' + i, simulation: { difficulty: 0.5, correct: ['CORRECT'], wrong: ['WRONG A', 'WRONG B'] } }))
const base = actors.simulated({ profile: 'reviser' })
// A regression in the agent's code (the protocol is the same): on even tasks it resubmits its previous answer.
const weakened: ChatModel = { ...base, async chat(request) {
  const previous = [...request.messages].reverse().find((m) => m.role === 'assistant')
  if (previous && Number(request.context.taskId.slice(1)) % 2 === 0) return { text: previous.content, usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }, latencyMs: 0, finishReason: 'stop', costUsd: 0 }
  return base.chat(request)
} }
seqEval('agree', {
  tasks,
  actors: [process.env.WEAKEN === '1' ? weakened : base, actors.openaiCompatible({ model: 'quiet', baseURL: ${JSON.stringify(baseURL)}, apiKey: 'local', retry: { maxRetries: 0 } })],
  verifier,
  budget: 4,
  repeats: 2,
  modes: {
    verifier: { feedback: feedback.verifier(), expect: { seqAt: { 4: 0.2 } } },
    binary: { feedback: feedback.binary() },
  },
  baseline: { file: 'agree.baseline.json' },
})
// A cell that checks nothing: no threshold, no baseline.
seqEval('agree, unchecked', { tasks: tasks.slice(0, 4), actors: [actors.simulated({ profile: 'stubborn' })], verifier, budget: 2, repeats: 1, modes: { binary: { feedback: feedback.binary() } } })
`

// A model without a key (skipped, with why) and an app that fails every call (each trajectory an error).
const MORE = `import { actors, feedback, seqEval, type Verifier } from 'vitest-seqk'
${SAYS_CORRECT_SOURCE}
seqEval('agree, more', {
  tasks: [{ id: 'm1', prompt: 'Say CORRECT.' }, { id: 'm2', prompt: 'Say CORRECT!' }],
  actors: [
    actors.openai({ model: 'gpt-4o-mini', skipWithoutKey: true }),
    actors.fromFunction(() => { throw new Error('the app is down') }, { name: 'down-app' }),
  ],
  verifier,
  budget: 2,
  repeats: 1,
  modes: { binary: { feedback: feedback.binary(), expect: { seqAt: { 2: 0.5 } } } },
})
`

const BROKEN = `import { seqEval } from 'vitest-seqk'
seqEval('broken', { tasks: [ }) // a syntax error
`

const escapeRe = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Columns a line takes, as a terminal shows it (characters, colour codes stripped). */
const columns = (line: string) => [...stripVTControlCharacters(line)].length

describe('one run, every output (a broken file, no thresholds, a failing baseline, a server without usage)', () => {
  let dir: string
  let server: Server
  let out = ''
  let status: number | null = null
  let summary: RunSummary
  let vitestJson: {
    testResults: {
      name: string
      status: string
      message: string
      assertionResults: { fullName: string; title: string; status: string; failureMessages: string[] }[]
    }[]
  }
  const runDir = () => join(dir, 'run-2')
  let junit = ''
  let recomputed: RunSummary
  let exportOut = ''

  beforeAll(async () => {
    dir = fixtureProject('seqk-agree-')
    server = await noUsageServer()
    const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
    writeFileSync(
      join(dir, 'vitest.config.ts'),
      `import { defineConfig } from 'vitest/config'
export default defineConfig({
  ${SEQK_ALIAS},
  test: { include: ['*.eval.ts'], reporters: [${JSON.stringify(PACKAGE.reporter)}, 'default', ['json', { outputFile: 'vitest.json' }]], setupFiles: [${JSON.stringify(PACKAGE.setup)}] },
})
`,
    )
    writeFileSync(join(dir, 'agree.eval.ts'), EVAL(baseURL))
    const env = (extra: Record<string, string>) => cleanEnv({ SEQK_HISTORY_FILE: join(dir, 'history.jsonl'), ...extra })
    // A first, healthy run writes the baseline.
    const first = await runNode([VITEST, 'run'], {
      cwd: dir,
      env: env({ SEQK_RUN_DIR: join(dir, 'run-1') }),
      timeoutMs: 120_000,
    })
    expect(first.status, first.out).toBe(0)
    // The run under test: CI, the weakened actor, a file that does not parse, a skipped and an all-errored cell.
    writeFileSync(join(dir, 'broken.eval.ts'), BROKEN)
    writeFileSync(join(dir, 'more.eval.ts'), MORE)
    writeFileSync(join(dir, 'step-summary.md'), '')
    const second = await runNode([VITEST, 'run'], {
      cwd: dir,
      env: env({
        SEQK_RUN_DIR: runDir(),
        CI: 'true',
        WEAKEN: '1',
        GITHUB_ACTIONS: 'true',
        GITHUB_STEP_SUMMARY: join(dir, 'step-summary.md'),
      }),
      timeoutMs: 120_000,
    })
    out = second.out
    status = second.status
    summary = readSummary(join(runDir(), 'summary.json'))
    vitestJson = JSON.parse(readFileSync(join(dir, 'vitest.json'), 'utf8'))
    const exported = await runNode([...SEQK, 'export', runDir(), '--format', 'junit'], {
      cwd: dir,
      env: cleanEnv(),
      timeoutMs: 60_000,
    })
    expect(exported.status, exported.out).toBe(0)
    exportOut = exported.out
    junit = readFileSync(join(runDir(), 'junit.xml'), 'utf8')
    const summarized = await runNode([...SEQK, 'summarize', runDir(), '--out', '-'], {
      cwd: dir,
      env: cleanEnv(),
      timeoutMs: 60_000,
    })
    expect(summarized.status, summarized.out).toBe(0)
    recomputed = JSON.parse(summarized.stdout) as RunSummary
  }, 300_000)

  afterAll(() => {
    server?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const cells = () => summary.benchmarks.flatMap((b) => b.cells)
  const verdictText = (cellId: string) => {
    const v = cellVerdict(cells().find((c) => c.cellId === cellId)!)
    return v.status === 'fail' ? `fail (${v.failed.length})` : v.status === 'no-thresholds' ? 'no thresholds' : v.status
  }

  it('fails the run, and summary.json has the broken file, the verdicts, and unknown usage as null', () => {
    expect(status, out).toBe(1)
    expect(summary.loadErrors).toEqual([{ file: 'broken.eval.ts', error: expect.stringMatching(/\S/) }])
    const v = summaryVerdict(summary)
    expect(summary.verdict).toMatchObject({ status: 'fail', failedChecks: v.failedChecks, cells: v.cells })
    expect(v.cells.fail).toBeGreaterThan(0)
    expect(v.cells['no-thresholds']).toBeGreaterThan(0)
    // The compatible server reported no usage: unknown, never zero.
    for (const c of cells().filter((c) => c.actorId === 'compat:quiet')) {
      expect(c.usage).toBeNull()
      expect(c.usageUnknownCalls).toBe(c.calls)
      expect(c.costUsd).toBeNull()
    }
    const weak = cells().find((c) => c.cellId === 'simulated:reviser · verifier')!
    expect(weak.gate?.status).toBe('fail')
    // The model without a key did not run, and says why; the app that failed every call is one failed check.
    expect(summary.notRun).toEqual([
      {
        file: 'more.eval.ts',
        benchmark: 'agree, more',
        cellId: 'openai:gpt-4o-mini · binary',
        reason: expect.stringContaining('OPENAI_API_KEY is not set'),
      },
    ])
    const down = cellVerdict(cells().find((c) => c.cellId === 'down-app · binary')!)
    expect([down.status, down.failed.map((c) => c.kind)]).toEqual(['fail', ['measured']])
  })

  it('seqk summarize recomputes the same verdict from the files, the broken file and the skipped cell with it', () => {
    expect(recomputed.loadErrors).toEqual(summary.loadErrors)
    expect(recomputed.notRun).toEqual(summary.notRun)
    expect(recomputed.verdict).toEqual(summary.verdict)
  })

  it('seqk export --format junit: the same cells and verdicts, each failed check once, the broken file, the skipped cell', async () => {
    const v = summaryVerdict(summary)
    expect(exportOut.replace(/\s+/g, ' ')).toContain(`seqk export: ${runCountsText(v)}, as JUnit XML`)
    if (HAS_XMLLINT) {
      const { valid, output } = await xmllintJunit(junit)
      expect(valid, output).toBe(true)
    }
    const cases = new Map(
      [...junit.matchAll(/<testcase name="([^"]*)" classname="([^"]*)" time="[^"]*">(.*?)<\/testcase>/gs)].map((m) => [
        `${m[2]} › ${m[1]}`,
        m[3]!,
      ]),
    )
    expect(cases.size).toBe(v.entries.length)
    for (const b of summary.benchmarks)
      for (const c of b.cells) {
        const verdict = cellVerdict(c)
        const body = cases.get(`${xmlEscape(b.name)} › ${xmlEscape(c.cellId)}`)
        expect(body, c.cellId).toBeDefined()
        if (verdict.status !== 'fail') expect([c.cellId, body]).toEqual([c.cellId, ''])
        else {
          const root = verdict.failed.some((f) => f.kind === 'measured' || f.kind === 'finished')
          expect(body, c.cellId).toMatch(root ? /^<error / : /^<failure /)
          const count = verdict.failed.length === 1 ? 'a check' : `${verdict.failed.length} checks`
          expect(body).toContain(xmlEscape(`${c.cellId}: ${count} failed`))
          // Each failed check once: in its cell's one failure, and in no test case of its own.
          for (const f of verdict.failed) expect(body!.split(xmlEscape(`- ${f.message}`)).length - 1, f.message).toBe(1)
        }
      }
    const broken = summary.loadErrors![0]!
    expect(cases.get('broken.eval.ts › broken.eval.ts')).toMatch(
      new RegExp(
        `^<error message="${escapeRe(xmlEscape(`broken.eval.ts failed to load: ${broken.error}`))}" type="seqk.loadError">`,
      ),
    )
    const skipped = summary.notRun![0]!
    expect(cases.get(`${skipped.benchmark} › ${skipped.cellId}`)).toBe(
      `<skipped message="${xmlEscape(`did not run: ${skipped.reason}`)}"/>`,
    )
    const total = (name: string) =>
      [...junit.matchAll(new RegExp(`<testsuite [^>]*\\b${name}="(\\d+)"`, 'g'))].reduce((n, m) => n + Number(m[1]), 0)
    expect(total('failures') + total('errors')).toBe(v.cells.fail + v.loadErrors.length)
    expect(total('skipped')).toBe(v.cells['not-run'])
    const checks = [...junit.matchAll(/name="seqk.failedChecks" value="(\d+)"/g)].reduce((n, m) => n + Number(m[1]), 0)
    expect(checks).toBe(v.failedChecks)
  })

  it("Vitest's own result fails the same cells, with the same number of checks, and the broken file", () => {
    const tests = vitestJson.testResults.flatMap((f) => f.assertionResults)
    for (const c of cells()) {
      const t = tests.find((x) => x.title === c.cellId)!
      const v = cellVerdict(c)
      expect([c.cellId, t.status]).toEqual([c.cellId, v.status === 'fail' ? 'failed' : 'passed'])
      if (v.status === 'fail')
        expect(t.failureMessages[0]).toContain(
          `${c.cellId}: ${v.failed.length === 1 ? 'a check' : `${v.failed.length} checks`} failed`,
        )
    }
    const broken = vitestJson.testResults.find((f) => f.name.endsWith('broken.eval.ts'))!
    expect(broken.status).toBe('failed')
    expect(firstLine(broken.message)).toBe(summary.loadErrors![0]!.error)
    // The line that says what failed, not only that something did.
    expect(summary.loadErrors![0]!.error).toMatch(/^Transform failed with 1 error: \S/)
  })

  it("a failed threshold's stack points at the eval file's seqEval line, not into this package", () => {
    const failed = vitestJson.testResults.flatMap((f) => f.assertionResults).find((t) => t.status === 'failed')!
    const message = failed.failureMessages[0]!
    const frames = message.split('\n').filter((l) => /^\s+at /.test(l))
    expect(frames[0]).toMatch(/agree\.eval\.ts:\d+:\d+/)
    expect(frames.some((f) => /src[\\/]vitest[\\/]seq-eval|node_modules[\\/]vitest-seqk/.test(f))).toBe(false)
  })

  it('the terminal shows each cell with its verdict and count, the run verdict with the broken file, and fits 120 columns', () => {
    for (const c of cells())
      expect(out).toMatch(
        new RegExp(
          `${c.cellId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s.*\\s${verdictText(c.cellId).replace('fail', 'FAIL').replace(/[()]/g, '\\$&')}`,
        ),
      )
    expect(out).toContain(`seqk: run FAIL · ${runCountsText(summaryVerdict(summary))}`)
    expect(out).toMatch(/✗ broken\.eval\.ts failed to load: /)
    expect(out).toMatch(/token usage unknown for \d+ of \d+ calls/)
    const long = out.split('\n').filter((l) => columns(l) > 120 && !/^\s+at |^ (FAIL|❯|×|✓)|^⎯|^\s*\d+\|/.test(l))
    expect(long).toEqual([])
  })

  it('pr-comment.md and the step summary say the same, and render as the Markdown they mean', () => {
    const md = readFileSync(join(runDir(), 'pr-comment.md'), 'utf8')
    expect(readFileSync(join(dir, 'step-summary.md'), 'utf8')).toBe(`${md}\n`)
    expect(md).toMatch(/^## ❌ Seq@K run/)
    expect(md).toContain(runCountsText(summaryVerdict(summary)))
    expect(md).toContain('- ❌ `broken.eval.ts`: ')
    const html = new MarkdownIt({ html: true }).render(md)
    // The cell table parses as a table with one row per cell, each with its verdict.
    const rows = [...html.matchAll(/<tr>\s*<td>([^<]+)<\/td>[\s\S]*?<\/tr>/g)]
    for (const c of cells()) {
      const row = rows.find((r) => r[1] === c.cellId)
      expect(row, c.cellId).toBeDefined()
      expect(row![0]).toContain(verdictText(c.cellId))
    }
    const compat = rows.find((r) => r[1] === 'compat:quiet · verifier')![0]
    expect(compat).toContain('<td style="text-align:right">unknown</td>')
    // Every list item is one sentence: it ends with a full stop and no two run together.
    const items = [...html.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, '').trim())
    for (const item of items.filter((i) => /^[❌✅]/.test(i))) expect(item, item).toMatch(/[.)]$/)
    // Two ranking or note lines never merge into one paragraph.
    for (const p of [...html.matchAll(/<p>([\s\S]*?)<\/p>/g)].map((m) => m[1]!))
      expect(p.split(/\.\s+(?=[a-z])/).length, p).toBe(1)
  })

  it('annotations count each failed check once, and name the broken file', () => {
    const errors = out.split('\n').filter((l) => l.startsWith('::error '))
    expect(errors).toHaveLength(summaryVerdict(summary).failedChecks)
    expect(errors.some((l) => l.startsWith('::error file=broken.eval.ts,'))).toBe(true)
  })

  it('report.html shows the same verdicts, the broken file and unknown tokens', () => {
    const html = readFileSync(join(runDir(), 'report.html'), 'utf8')
    expect(html).toContain(
      `data-status="fail">fail</span> <span class="counts">${runCountsText(summaryVerdict(summary))}</span>`,
    )
    expect(html).toContain('data-load-error="broken.eval.ts"')
    for (const c of cells()) {
      const row = new RegExp(`<tr class="cell" data-cell="${c.cellId}">[\\s\\S]*?</tr>`).exec(html)![0]
      expect(row, c.cellId).toContain(`>${verdictText(c.cellId)}</span>`)
      if (c.actorId === 'compat:quiet') expect(row).toContain('>unknown</td>')
    }
  })

  it('the live view shows the same cells, verdicts, broken file and run verdict', () => {
    const live = new LiveRun(runDir(), { pollMs: 60_000 })
    try {
      const view = liveView(live.snapshot().snapshot)
      expect(view.loadErrors).toEqual([`broken.eval.ts failed to load: ${summary.loadErrors![0]!.error}`])
      expect(view.badge).toEqual({ text: 'run ended · fail', kind: 'fail' })
      expect(view.ended?.text).toContain(runCountsText(summaryVerdict(summary)))
      for (const c of cells())
        expect([c.cellId, view.cells.find((r) => r.cellId === c.cellId)?.verdict]).toEqual([
          c.cellId,
          verdictText(c.cellId),
        ])
      const planned = cells().reduce((n, c) => n + c.trajectories, 0)
      expect(view.cells.reduce((n, r) => n + r.done, 0)).toBe(planned)
      // A skipped cell is skipped, with its reason, and "not run" as every output says: never planned for ever.
      for (const n of summary.notRun ?? [])
        expect(view.cells.find((r) => r.cellId === n.cellId)).toMatchObject({
          phase: 'skipped',
          state: `skipped: ${n.reason}`,
          verdict: 'not run',
        })
    } finally {
      live.close()
    }
  })
})
