// Runs the bundled evals exactly as `npm run evals` does, in a child process (in CI: checks the run
// of `npm run evals` that .ci/run made just before), and checks what a user gets: the table in the
// terminal, summary.json and trajectories.jsonl, and the paper's headline effect (an actor order
// that changes between Pass@5 and Seq@5 with verifier feedback), and the agent benchmark's
// (simulated agent profiles ordered differently by Seq@3 and Pass@3, with their agent metrics).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stripVTControlCharacters } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readSummary, readTrajectories, type RunSummary } from '../src/artifacts/index.js'
import { cleanEnv, limiter, root, runNode, SEQK, VITEST } from './fixture-project.js'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { runCli } from '../src/cli/run.js'
import { DisclosureCardSchema } from '../src/core/disclosure.js'
import { evalLogValidator, HAS_XMLLINT, schemaErrors, xmllintJunit } from './export-schemas.js'

type Ran = Awaited<ReturnType<typeof runNode>>

/**
 * CI runs `npm run evals` (the README's main job) right before `npm test` (.ci/run) and hands that
 * run over in SEQK_TEST_EVALS_RUN: a directory holding the run directory's path (`run-dir`), the
 * run's `stdout`, `stderr` and exit `status`. This file then checks that very run instead of running
 * the same evals a second time; without the variable it runs them itself.
 */
function handedOver(): { runDir: string; ran: Ran } | undefined {
  const from = process.env.SEQK_TEST_EVALS_RUN
  if (!from) return undefined
  const read = (name: string) => stripVTControlCharacters(readFileSync(join(from, name), 'utf8'))
  const stdout = read('stdout')
  const stderr = read('stderr')
  const status = read('status').trim()
  if (!/^\d+$/.test(status))
    throw new Error(`SEQK_TEST_EVALS_RUN: ${join(from, 'status')} holds no exit status (${JSON.stringify(status)})`)
  const ran = { status: Number(status), stdout, stderr, out: `${stdout}\n${stderr}` }
  return { runDir: read('run-dir').trim(), ran }
}
const handover = handedOver()

const tmp = mkdtempSync(join(tmpdir(), 'seqk-e2e-'))
const runDir = handover?.runDir ?? join(tmp, 'run')
let result: Ran
let summary: RunSummary

const history = { SEQK_HISTORY_FILE: join(tmp, 'history.jsonl') }

/** Vitest in this repository, as `npm run evals` runs it, to its end. */
function vitest(args: string[], env: Record<string, string>) {
  return runNode([VITEST, ...args], {
    cwd: root,
    env: cleanEnv({ CI: 'true', ...history, ...env }),
    timeoutMs: 400_000,
  })
}

/** The seqk CLI from the sources. */
function seqk(args: string[]) {
  return runNode([...SEQK, ...args], { cwd: root, env: cleanEnv({ CI: 'true', ...history }), timeoutMs: 120_000 })
}

/** The blobs of the two file shards (`--shard`), in their own directory. */
const blobs = join(tmp, 'blobs')
/** The run directories of the two task shards (SEQK_SHARD). */
const taskShardDirs = [1, 2].map((i) => join(tmp, `task-shard-${i}`))
let recomputed: Ran
let fileShards: { shards: Ran[]; merged: Ran; recomputed: Ran }
let taskShards: { shards: Ran[]; merged: Ran }

beforeAll(async () => {
  // Every child run of this file starts here, side by side, two at a time: the direct run, and two
  // shardings of it (the shards are other machines' work), each chain waiting only for what it
  // reads. The tests compare what the chains wrote. The hook's time is what the runs had when each
  // test ran its own (420 s before, 450 s in the tests).
  const slot = limiter(2)
  const later = (args: string[], env: Record<string, string> = {}) => slot(() => vitest(args, env))
  const cli = (args: string[]) => slot(() => seqk(args))
  const direct = (async () => {
    const ran = handover?.ran ?? (await later(['run', '--project', 'evals'], { SEQK_RUN_DIR: runDir }))
    return { ran, recomputed: await cli(['summarize', runDir, '--out', join(tmp, 'recomputed.json')]) }
  })()
  const files = (async () => {
    // Each file shard on its own "machine": its own run directory, its trajectories carried in the blob.
    const shards = await Promise.all(
      [1, 2].map((shard) =>
        later(
          [
            'run',
            '--project',
            'evals',
            `--shard=${shard}/2`,
            '--reporter=blob',
            `--outputFile=${join(blobs, `blob-${shard}.json`)}`,
          ],
          { SEQK_RUN_DIR: join(tmp, `shard-${shard}`) },
        ),
      ),
    )
    const merged = await later(['run', `--merge-reports=${blobs}`], { SEQK_RUN_DIR: join(tmp, 'merged') })
    const again = await cli(['summarize', join(tmp, 'merged'), '--out', join(tmp, 'merged-recomputed.json')])
    return { shards, merged, recomputed: again }
  })()
  const tasks = (async () => {
    const shards = await Promise.all(
      taskShardDirs.map((dir, i) =>
        later(['run', '--project', 'evals'], { SEQK_RUN_DIR: dir, SEQK_SHARD: `${i + 1}/2` }),
      ),
    )
    return { shards, merged: await cli(['merge', ...taskShardDirs, '--out', join(tmp, 'task-merged')]) }
  })()
  let ran: { ran: Ran; recomputed: Ran }
  ;[ran, fileShards, taskShards] = await Promise.all([direct, files, tasks])
  result = ran.ran
  recomputed = ran.recomputed
  summary = readSummary(join(runDir, 'summary.json'))
}, 870_000)

afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const FIXTURES = 'self-invoking python (fixtures)'
/** The bundled fixture benchmark (the HumanEval Pro eval also runs when ../shared is there). */
const fixtures = () => summary.benchmarks.find((b) => b.name === FIXTURES)!

/** A cell or trajectory without what differs between two runs of the same protocol. */
function stable<T extends object>(value: T): Partial<T> {
  const {
    runId: _r,
    durationMs: _d,
    startedAt: _s,
    ...rest
  } = value as T & { runId?: unknown; durationMs?: unknown; startedAt?: unknown }
  return rest as Partial<T>
}

describe('npm run evals (bundled fixtures, simulated actors, real Python)', () => {
  it('passes and prints one table row per cell', () => {
    expect(result.status, result.stderr).toBe(0)
    const out = result.stdout
    expect(out).toContain('self-invoking python (fixtures) — K=5, 13 tasks × 3 repeats, history full, rates in %')
    for (const actor of ['reviser', 'stubborn', 'one-shot', 'flaky']) {
      for (const mode of ['binary', 'verifier', 'independent'])
        expect(out).toMatch(new RegExp(`simulated:${actor} · ${mode}\\s+(Seq|Pass)\\s+\\d`))
    }
    expect(out).toMatch(/ranking changes from Pass@5 to Seq@5 \(binary\)/)
    expect(out).toMatch(/ranking changes from Pass@5 to Seq@5 \(verifier\)/)
  })

  it('writes summary.json with every cell and its intervals', () => {
    const cells = fixtures().cells
    expect(cells).toHaveLength(12)
    for (const cell of cells) {
      expect(cell.verdict).toBe('pass')
      expect(cell.trajectories).toBe(39)
      expect(cell.seqAtInterval.lo).not.toBeNull()
      if (cell.mode === 'independent') expect(cell.passAt).toHaveLength(5)
    }
    expect(fixtures().file).toBe('evals/fixtures-code.eval.ts')
  })

  it('writes every trajectory, with the protocol and its fingerprint', () => {
    const { trajectories: all, truncatedTail } = readTrajectories(join(runDir, 'trajectories.jsonl'))
    expect(truncatedTail).toBe(false)
    const trajectories = all.filter((t) => t.benchmark === FIXTURES)
    expect(trajectories).toHaveLength(12 * 39)
    const fingerprints = new Set(trajectories.map((t) => t.fingerprint))
    expect(fingerprints.size).toBe(12)
    const revised = trajectories.find((t) => t.mode === 'verifier' && t.attempts.length > 1)!
    expect(revised.attempts[0]!.feedback?.text).toMatch(/Failed test details:|failed to load/)
  })

  it('shows an actor pair whose order under Pass@5 differs from Seq@5 with verifier feedback', () => {
    const cells = fixtures().cells
    const pass5 = (actor: string) => cells.find((c) => c.actorId === actor && c.mode === 'independent')!.passAt![4]!
    const seq5 = (actor: string) => cells.find((c) => c.actorId === actor && c.mode === 'verifier')!.seqAt[4]!
    const actors = [...new Set(cells.map((c) => c.actorId))]
    const reversed = actors
      .flatMap((a) => actors.map((b) => [a, b] as const))
      .filter(([a, b]) => pass5(a) > pass5(b) && seq5(a) < seq5(b))
    expect(reversed.length).toBeGreaterThan(0)
  })

  it("shows an actor whose rank by pass^5 differs from its rank by Seq@5: the capable but inconsistent 'flaky'", () => {
    const cells = fixtures().cells
    const actors = [...new Set(cells.map((c) => c.actorId))]
    const at = (actor: string, mode: string, read: (c: (typeof cells)[number]) => number) =>
      read(cells.find((c) => c.actorId === actor && c.mode === mode)!)
    const rank = (actor: string, score: (a: string) => number) =>
      1 + actors.filter((o) => score(o) > score(actor)).length
    const passHat5 = (a: string) => at(a, 'independent', (c) => c.passHat![4]!)
    const seq5 = (a: string) => at(a, 'verifier', (c) => c.seqAt[4]!)
    expect(rank('simulated:flaky', passHat5)).toBe(actors.length)
    expect(rank('simulated:flaky', seq5)).toBeLessThan(rank('simulated:flaky', passHat5))
  })

  it('reports G-Pass@5_τ between Pass@5 and pass^5, and each sequential cell against sampling at equal cost', () => {
    const cells = fixtures().cells
    for (const c of cells.filter((x) => x.protocol.kind === 'independent'))
      for (const g of c.gPass!) {
        expect(g.curve[4]!).toBeLessThanOrEqual(c.passAt![4]! + 1e-12)
        expect(g.curve[4]!).toBeGreaterThanOrEqual(c.passHat![4]! - 1e-12)
      }
    const pairs = summary.equalCost!.filter((p) => p.benchmark === FIXTURES)
    expect(pairs).toHaveLength(cells.filter((c) => c.protocol.kind === 'sequential').length)
    // Simulated actors report their tokens: the comparison in tokens is known for every pair.
    for (const p of pairs) expect(p.tokens.verdict).toMatch(/dominates|crossing|equal/)
    // Revising on verifier feedback beats sampling at every equal spend; never repairing never does.
    const pair = (actor: string) => pairs.find((p) => p.actorId === actor && p.mode === 'verifier')!
    expect(pair('simulated:reviser').tokens.verdict).toBe('sequential-dominates')
    expect(pair('simulated:stubborn').tokens.verdict).toBe('independent-dominates')
    const page = readFileSync(join(runDir, 'report.html'), 'utf8')
    expect(page).toContain('<h3>At equal cost: revising against sampling</h3>')
    expect(page).toContain('(G-Pass@K<sub>τ</sub>)</h3>')
    expect(page).toContain(`<tr data-pair="${pair('simulated:reviser').sequential}">`)
  })
})

const AGENTS = 'repository repair (agents, fixtures)'
const PROFILES = ['repairs', 'thrashes', 'stops-early']

describe('the bundled agent benchmark (simulated agents, real workspace tools and sandbox)', () => {
  const bench = () => summary.benchmarks.find((b) => b.name === AGENTS)!
  const cellOf = (profile: string, mode: string) =>
    bench().cells.find((c) => c.actorId === `agent:${profile}` && c.mode === mode)!

  it('prints its table and the agent table: every profile with its agent metrics and how its episodes ended', () => {
    const out = result.stdout
    expect(out).toContain(`${AGENTS} — K=3, 5 tasks × 2 repeats, history full`)
    expect(out).toMatch(/agents \(per attempt; tool errors in %; consistency 0–1/)
    for (const profile of PROFILES)
      for (const mode of ['verifier', 'independent'])
        expect(out).toMatch(
          new RegExp(
            `agent:${profile} · ${mode}\\s+\\d+\\.\\d\\s+\\d+\\.\\d\\s+\\d+\\.\\d\\s+\\$0\\s+(\\d\\.\\d\\d|—)\\s+(\\d\\.\\d\\d|—)\\s+answer \\d+`,
          ),
        )
  })

  it('keeps the agent metrics and the trajectory consistency of each profile in summary.json', () => {
    expect(bench().cells).toHaveLength(6)
    expect(bench().file).toBe('evals/agent-repair.eval.ts')
    for (const cell of bench().cells) {
      const agent = cell.agent!
      expect(agent.episodes).toBeGreaterThan(0)
      expect(agent.meanToolCalls).toBeGreaterThan(1)
      expect(agent.costPerSolvedUsd).toBe(0)
      expect(Object.values(agent.endedBy).reduce((a, b) => a + b, 0)).toBe(agent.episodes)
    }
    // Every independent cell solves some task on two samples: its consistency is measured.
    for (const profile of PROFILES) expect(cellOf(profile, 'independent').agent!.consistency.tasks).toBeGreaterThan(0)
    // The thrasher makes the most tool calls, fails some (stray reads), and acts least consistently.
    const thrash = cellOf('thrashes', 'independent').agent!
    for (const other of ['repairs', 'stops-early']) {
      const a = cellOf(other, 'independent').agent!
      expect(thrash.meanToolCalls!).toBeGreaterThan(a.meanToolCalls!)
      expect(thrash.consistency.sequence!).toBeLessThan(a.consistency.sequence!)
    }
    expect(thrash.toolErrorRate!).toBeGreaterThan(0)
    expect(cellOf('repairs', 'independent').agent!.toolErrorRate).toBe(0)
    // Every tool call an attempt made is on its trajectory, its workspace judged by the sandboxed verifier.
    const { trajectories } = readTrajectories(join(runDir, 'trajectories.jsonl'))
    const ran = trajectories.filter((t) => t.benchmark === AGENTS)
    expect(ran).toHaveLength(6 * 10)
    for (const t of ran)
      for (const a of t.attempts) {
        expect(a.episode!.turns.length).toBeGreaterThan(1)
        expect(a.verdict.sandbox).toBe('bwrap')
      }
  })

  it('ranks the profiles differently by Seq@3 (verifier feedback) than by Pass@3', () => {
    const rank = (score: (p: string) => number) =>
      [...PROFILES].sort((a, b) => score(b) - score(a) || a.localeCompare(b))
    const bySeq = rank((p) => cellOf(p, 'verifier').seqAt[2]!)
    const byPass = rank((p) => cellOf(p, 'independent').passAt![2]!)
    expect(bySeq).not.toEqual(byPass)
    // The one that repairs from feedback is first under feedback and last on independent tries.
    expect(bySeq[0]).toBe('repairs')
    expect(byPass.at(-1)).toBe('repairs')
    expect(result.stdout).toMatch(/ranking changes from Pass@3 to Seq@3 \(verifier\): agent:repairs 3rd → 1st/)
  })

  it('shows the agent section in report.html', () => {
    const page = readFileSync(join(runDir, 'report.html'), 'utf8')
    expect(page).toContain('<h3>Agents</h3>')
    for (const profile of PROFILES) expect(page).toContain(`<tr data-cell="agent:${profile} · verifier">`)
    expect(page).toMatch(/data-metric="sequence">\d\.\d\d</)
  })
})

describe('npx seqk summarize', () => {
  it("recomputes the bundled run's summary.json from trajectories.jsonl and cells.jsonl alone, identical but for its own timestamp", async () => {
    expect(recomputed.status, recomputed.stderr).toBe(0)
    expect(recomputed.stdout).toMatch(/^seqk summarize: \d+ trajectories · \d+ cells · [^;]+;\s+wrote\s/)
    expect({ ...readSummary(join(tmp, 'recomputed.json')), createdAt: 'x' }).toEqual({ ...summary, createdAt: 'x' })
  })
})

describe('--merge-reports', () => {
  it('two shards merged give the same summary.json and trajectories as the direct run', () => {
    for (const blobRun of fileShards.shards) expect(blobRun.status, blobRun.stderr).toBe(0)
    const mergedDir = join(tmp, 'merged')
    const merged = fileShards.merged
    expect(merged.status, merged.stderr).toBe(0)
    expect(merged.stdout).toContain('self-invoking python (fixtures) — K=5')

    const byName = (s: RunSummary) =>
      [...s.benchmarks]
        .sort((a, b) => a.name.localeCompare(b.name))
        .flatMap((b) => b.cells.map((c) => ({ ...stable(c), perTask: c.perTask })))
    const direct = byName(summary)
    const fromBlobs = byName(readSummary(join(mergedDir, 'summary.json')))
    expect(direct.length).toBeGreaterThanOrEqual(9)
    expect(fromBlobs).toEqual(direct)

    // The blob machine's trajectories were carried inline and rebuilt here. Latencies, and which
    // helper call hit the grader's cache (it depends on how concurrent trajectories interleave), vary.
    // Cell ids repeat across benchmarks (the two rubric blocks share tasks too): the benchmark is part of the key.
    const key = (t: { benchmark?: string; cellId?: string; taskId?: string; repeat?: number }) =>
      `${t.benchmark}|${t.cellId}|${t.taskId}|${t.repeat}`
    const sortBy = <T extends { benchmark: string; cellId: string; taskId: string; repeat: number }>(ts: T[]) =>
      [...ts].sort((a, b) => key(a).localeCompare(key(b)))
    // The LLM annotator's calls too: their latency and whether its cache served them vary the same way.
    const calm = <C extends { latencyMs: number; replayed: boolean }>(c: C) => ({ ...c, latencyMs: 0, replayed: false })
    const comparableRun = (dir: string) =>
      sortBy(readTrajectories(join(dir, 'trajectories.jsonl')).trajectories).map((t) => ({
        ...stable(t),
        attempts: t.attempts.map((x) => ({
          ...x,
          latencyMs: 0,
          helperCalls: x.helperCalls.map(calm),
          verdict: { ...x.verdict, durationMs: 0 },
          ...(x.annotation ? { annotation: { ...x.annotation, calls: x.annotation.calls?.map(calm) } } : {}),
          // An agent's turns and tool calls are timed too.
          ...(x.episode
            ? {
                episode: {
                  ...x.episode,
                  turns: x.episode.turns.map((turn) => ({
                    ...calm(turn),
                    toolCalls: turn.toolCalls.map((call) => ({ ...call, durationMs: 0 })),
                  })),
                },
              }
            : {}),
        })),
      }))
    const a = comparableRun(runDir)
    const b = comparableRun(mergedDir)
    expect(b.length).toBe(a.length)
    // One trajectory at a time, so a difference shows as a readable diff rather than a huge one.
    a.forEach((t, i) => expect(b[i], key(t)).toEqual(t))

    // cells.jsonl is rebuilt from the blobs too: the merged run recomputes to its own summary.
    expect(fileShards.recomputed.status, fileShards.recomputed.stderr).toBe(0)
    expect({ ...readSummary(join(tmp, 'merged-recomputed.json')), createdAt: 'x' }).toEqual({
      ...readSummary(join(mergedDir, 'summary.json')),
      createdAt: 'x',
    })
  })
})

describe('SEQK_SHARD and seqk merge', () => {
  it("the bundled evals as two task shards, merged, give the direct run's summary.json", () => {
    for (const [i, shard] of taskShards.shards.entries()) {
      expect(shard.status, shard.stderr).toBe(0)
      expect(shard.stdout).toMatch(new RegExp(`shard ${i + 1}/2`))
    }
    const mergedDir = join(tmp, 'task-merged')
    const r = taskShards.merged
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0)
    expect(r.stdout).toContain('self-invoking python (fixtures) — K=5, 13 tasks × 3 repeats')
    const cells = (s: RunSummary) =>
      s.benchmarks.flatMap((b) => b.cells.map((c) => ({ benchmark: b.name, ...stable(c), perTask: c.perTask })))
    expect(cells(readSummary(join(mergedDir, 'summary.json')))).toEqual(cells(summary))
  })
})

describe('the disclosure card and the exports of the bundled run', () => {
  it('writes disclosure.json: complete, valid under schemas/disclosure.schema.json, and telling what summary.json tells', () => {
    const card = DisclosureCardSchema.parse(JSON.parse(readFileSync(join(runDir, 'disclosure.json'), 'utf8')))
    const validate = new Ajv2020({ strict: false }).compile(
      JSON.parse(readFileSync(join(root, 'schemas/disclosure.schema.json'), 'utf8')) as object,
    )
    expect(validate(card), JSON.stringify(validate.errors)).toBe(true)
    expect(card.completeness.missing).toEqual([])
    expect(card.completeness.score).toBe(1)
    expect(card.benchmarks.map((b) => b.name)).toEqual(summary.benchmarks.map((b) => b.name))
    expect(card.benchmarks.find((b) => b.name === FIXTURES)).toMatchObject({
      tasks: 13,
      source: 'vitest-seqk fixtures',
    })
    expect(card.harness).toMatchObject({ node: process.version, pythonUsed: true, collected: { by: 'reporter' } })
    expect(card.harness.git.commit).toMatch(/^[0-9a-f]{40}$/)
    const cells = summary.benchmarks.flatMap((b) => b.cells)
    expect(card.cost.calls).toBe(cells.reduce((n, c) => n + c.calls, 0))
    expect(card.failures.trajectories).toBe(cells.reduce((n, c) => n + c.trajectories, 0))
    expect(card.inference.flatMap((a) => a.cells)).toHaveLength(cells.length)
  })

  it("exports every cell as an inspect_ai log valid under inspect_ai's schema, and the run as JUnit XML valid under the XSD", async () => {
    const io = {
      stdout: () => {},
      stderr: (t: string) => void process.stderr.write(t),
      isTTY: false,
      env: {},
      cwd: root,
    }
    const inspectDir = join(tmp, 'inspect')
    expect(await runCli(['export', runDir, '--format', 'inspect', '--out', inspectDir], io)).toBe(0)
    const files = readdirSync(inspectDir)
    expect(files).toHaveLength(summary.benchmarks.reduce((n, b) => n + b.cells.length, 0))
    const validate = evalLogValidator()
    for (const f of files)
      expect(
        validate(JSON.parse(readFileSync(join(inspectDir, f), 'utf8'))),
        `${f}: ${schemaErrors(validate.errors)}`,
      ).toBe(true)
    const junit = join(tmp, 'junit.xml')
    expect(await runCli(['export', runDir, '--format', 'junit', '--out', junit], io)).toBe(0)
    if (HAS_XMLLINT) {
      const { valid, output } = await xmllintJunit(readFileSync(junit, 'utf8'))
      expect(valid, output).toBe(true)
    }
  }, 120_000)
})

describe('the score curve and the reference protocol in the bundled run', () => {
  const ARC = 'ARC-AGI-2 grids (fixtures, reference protocol)'
  const RUBRIC = 'rubric fixtures (full history)'
  const bench = (name: string) => summary.benchmarks.find((b) => b.name === name)!

  it('runs the ARC-AGI-2 cells offline under the reference protocol, their Score@k read within the K-run', () => {
    const cells = bench(ARC).cells
    expect(cells).toHaveLength(9)
    expect(bench(ARC).file).toBe('evals/arc-agi-2.eval.ts')
    for (const cell of cells) {
      expect(cell.verdict).not.toBe('fail')
      expect(cell.score!.binary).toBe(true)
      expect(cell.score!.at.every((v) => v !== null)).toBe(true)
      if (cell.mode === 'independent') continue
      expect(cell.protocol).toMatchObject({ promptBuilder: 'seq_k-reference/1', budgetDisclosed: true })
      // Told its budget: Seq@k below K is undefined, Score@K is Seq@K.
      expect(cell.seqAt.slice(0, 4)).toEqual([null, null, null, null])
      expect(cell.score!.at[4]).toBeCloseTo(cell.seqAt[4]!, 12)
    }
    const cellMatch = readTrajectories(join(runDir, 'trajectories.jsonl')).trajectories.filter(
      (t) => t.benchmark === ARC && t.mode === 'cell_match' && t.status === 'failed',
    )
    // Feedback after the last failure too; cell-match text, never a target.
    for (const t of cellMatch) expect(t.attempts[4]!.feedback?.text).toMatch(/^(incorrect_output|format_error)/)
    // The notes wrap at 120 columns: read them as one line.
    const out = result.stdout.replace(/\s+/g, ' ')
    expect(out).toContain(`${ARC} — K=5, 5 tasks × 3 repeats`)
    expect(out).toMatch(/budget disclosed \([^)]*cell_match[^)]*\): Score@k for k < K is read within the K-run/)
  })

  it('shows the rubric cells’ score curve beside their Seq@k, in the terminal and summary.json', () => {
    const out = result.stdout
    expect(out).toMatch(
      / score curve, in % \(Score@k: the mean over tasks of the best verdict score reached by attempt k/,
    )
    expect(out).toMatch(
      / simulated:reviser · critic-aware\s+\d+\.\d\s+\d+\.\d\s+\d+\.\d\s+\d+\.\d\s+\d+\.\d\s+[\d.]+–[\d.]+\s+Seq@5 \d+\.\d/,
    )
    for (const cell of bench(RUBRIC).cells) {
      expect(cell.score!.binary).toBe(false)
      // A soft score credits partial answers: never below the solved rate (by sample k, in draw order, for independent cells).
      cell.score!.at.forEach((v, k) => expect(v!).toBeGreaterThanOrEqual(cell.seqAt[k]! - 1e-12))
    }
    const reviser = bench(RUBRIC).cells.find((c) => c.cellId === 'simulated:reviser · critic-aware')!
    console.log(
      `rubric reviser · critic-aware: Score@k ${reviser.score!.at.map((v) => (v! * 100).toFixed(1)).join(' / ')} against Seq@k ${reviser.seqAt.map((v) => (v! * 100).toFixed(1)).join(' / ')}`,
    )
  })
})
