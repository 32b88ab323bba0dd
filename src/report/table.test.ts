import { describe, expect, it } from 'vitest'
import type { CellSummary } from '../core/schemas.js'
import { rankingChanges, renderBenchmarkTable } from './table.js'

function cell(actorId: string, mode: string, curve: number[], overrides: Partial<CellSummary> = {}): CellSummary {
  const independent = mode === 'independent'
  const K = curve.length
  const interval = { point: curve[K - 1]!, lo: curve[K - 1]! - 0.1, hi: Math.min(1, curve[K - 1]! + 0.1), level: 0.95, method: 'korn-graubard/1', tasks: 2 }
  return {
    schema: 'seqk.cell/1',
    runId: 'r',
    benchmark: 'bench',
    cellId: `${actorId} · ${mode}`,
    actorId,
    mode,
    fingerprint: 'f',
    protocol: {
      schema: 'seqk.protocol/1',
      kind: independent ? 'independent' : 'sequential',
      benchmark: { name: 'bench', tasks: 2, contentHash: 'h' },
      verifier: { name: 'v', version: '1', settings: {} },
      feedback: independent ? null : { kind: 'verifier', name: mode, version: '1', settings: {} },
      history: independent ? null : { name: 'full', settings: {} },
      promptBuilder: 'p',
      actor: { provider: 'simulated', model: actorId, params: {} },
      budget: K,
      budgetDisclosed: false,
      errorsCountedAsFailures: false,
    },
    budget: K,
    repeats: 1,
    tasks: 2,
    trajectories: 2,
    errors: { count: 0, rate: 0, countedAsFailures: false, examples: [] },
    seqAt: curve,
    seqAtInterval: interval,
    passAt: independent ? curve : null,
    passAtInterval: independent ? interval : null,
    passHat: null,
    gain: curve[K - 1]! - curve[0]!,
    egs: independent ? null : 0.5,
    lgs: independent ? null : 0.25,
    timingNote: independent ? 'independent sampling has no revisions' : null,
    unmodifiedRevisions: { revisions: independent ? 0 : 4, unmodified: 1, rate: independent ? null : 0.25 },
    meanAttempts: 2,
    usage: { inputTokens: 1500, outputTokens: 500, cacheReadTokens: 0, cacheWriteTokens: 0 },
    costUsd: 0.0123,
    byRole: {},
    costPerTrajectory: 0.00615,
    cache: { cachedShare: 0, savedUsd: 0 },
    replayedCalls: 0,
    calls: 4,
    perTask: [],
    costAtK: curve.map(() => 0.01),
    thresholds: [],
    verdict: 'pass',
    durationMs: 10,
    ...overrides,
  }
}

describe('renderBenchmarkTable', () => {
  const cells = [cell('a', 'verifier', [0.4, 0.7, 0.9]), cell('a', 'independent', [0.45, 0.6, 0.95]), cell('b', 'verifier', [0.6, 0.6, 0.65]), cell('b', 'independent', [0.6, 0.8, 0.99])]

  it('shows one row per cell with the curve in percent, the interval, gain and cost, without colour codes', () => {
    const table = renderBenchmarkTable('bench', cells)
    const lines = table.split('\n')
    expect(lines[0]).toBe('bench — K=3, 2 tasks × 1 repeats, history full, rates in %')
    const row = lines.find((l) => l.includes('a · verifier'))!
    expect(row).toMatch(/Seq\s+40\.0\s+70\.0\s+90\.0\s+80\.0–100\.0\s+\+50\.0\s+0\.50\s+0\.25\s+25\.0\s+0\s+2\.0k\s+\$0\.01\s+pass$/)
    expect(lines.find((l) => l.includes('a · independent'))).toMatch(/Pass\s+45\.0/)
    // eslint-disable-next-line no-control-regex
    expect(table).not.toMatch(/\u001b\[/)
  })

  it('colours only when asked, keeping the same columns', () => {
    const plain = renderBenchmarkTable('bench', cells)
    const coloured = renderBenchmarkTable('bench', cells, { color: true })
    // eslint-disable-next-line no-control-regex
    expect(coloured.replace(/\u001b\[[0-9;]*m/g, '')).toBe(plain)
    expect(coloured).not.toBe(plain)
  })

  it('lists failed thresholds under the table', () => {
    const failed = cell('a', 'verifier', [0.4, 0.5, 0.6], { verdict: 'fail', thresholds: [{ metric: 'seqAt', k: 3, limit: 0.8, actual: 0.6, pass: false, message: 'Seq@3 = 0.600, below the required 0.8' }] })
    const table = renderBenchmarkTable('bench', [failed])
    expect(table).toContain('FAIL (1)')
    expect(table).toContain('✗ a · verifier: Seq@3 = 0.600, below the required 0.8')
  })
})

describe('rankingChanges', () => {
  it('states who moved between Pass@K and Seq@K per mode', () => {
    const cells = [cell('a', 'verifier', [0.4, 0.7, 0.9]), cell('a', 'independent', [0.45, 0.6, 0.95]), cell('b', 'verifier', [0.6, 0.6, 0.65]), cell('b', 'independent', [0.6, 0.8, 0.99])]
    expect(rankingChanges(cells)).toEqual(['ranking changes from Pass@3 to Seq@3 (verifier): a 2nd → 1st, b 1st → 2nd'])
  })

  it('prints ranks past 20 as ordinals ("21st", not "21th"), ties sharing the better rank', () => {
    // 23 actors, a0 best and a22 worst under Pass@3; under Seq@3 a21 (22nd) climbs to tie a20 (21st).
    const ids = Array.from({ length: 23 }, (_, i) => `a${i}`)
    const pass = (i: number) => 0.99 - i * 0.01
    const seq = (i: number) => (i === 21 ? pass(20) : i === 22 ? pass(21) - 0.001 : pass(i))
    const cells = ids.flatMap((id, i) => [cell(id, 'independent', [0.1, 0.2, pass(i)]), cell(id, 'verifier', [0.1, 0.2, seq(i)])])
    expect(rankingChanges(cells)).toEqual(['ranking changes from Pass@3 to Seq@3 (verifier): a21 22nd → 21st'])
  })

  it('says when the order is the same, and says nothing without two independent cells', () => {
    const same = [cell('a', 'verifier', [0.4, 0.7, 0.99]), cell('a', 'independent', [0.45, 0.6, 0.95]), cell('b', 'verifier', [0.6, 0.6, 0.65]), cell('b', 'independent', [0.6, 0.8, 0.9])]
    expect(rankingChanges(same)).toEqual(['ranking: the same under Pass@3 and Seq@3 (verifier)'])
    expect(rankingChanges([cell('a', 'verifier', [0.4, 0.7, 0.9]), cell('a', 'independent', [0.45, 0.6, 0.95])])).toEqual([])
  })

  it('ties two rates of one count computed along two paths (14/27 as …185 and …186)', () => {
    // Exact comparison read the last bits as an order and reported a ranking change both ways.
    const cells = [cell('a', 'verifier', [0.4, 0.5185185185185186]), cell('a', 'independent', [0.4, 0.5185185185185185]), cell('b', 'verifier', [0.4, 0.5185185185185185]), cell('b', 'independent', [0.4, 0.5185185185185186])]
    expect(rankingChanges(cells)).toEqual(['ranking: the same under Pass@2 and Seq@2 (verifier)'])
  })
})

describe('spendingLine', () => {
  it('says nothing for free offline runs, and sums cost, cache savings and replays otherwise', async () => {
    const { spendingLine } = await import('./table.js')
    const free = cell('a', 'verifier', [0.5, 1], { costUsd: 0 })
    expect(spendingLine([free])).toBeNull()
    const paid = cell('a', 'verifier', [0.5, 1], {
      costUsd: 1.5,
      usage: { inputTokens: 1000, outputTokens: 10, cacheReadTokens: 600, cacheWriteTokens: 0 },
      cache: { cachedShare: 0.6, savedUsd: 0.25 },
      byRole: { actor: { usage: { inputTokens: 1000, outputTokens: 10, cacheReadTokens: 600, cacheWriteTokens: 0 }, costUsd: 1.2, calls: 2 }, critic: { usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, costUsd: 0.3, calls: 1 } },
      replayedCalls: 3,
      calls: 3,
    })
    expect(spendingLine([paid, free])).toBe('cost $1.50; helpers $0.30; 24% of input tokens from prompt cache, saving $0.25; 3 of 7 calls served without a new request (a cassette, or the rubric grader\'s cache; nominal cost shown)')
    expect(spendingLine([{ ...paid, costUsd: null }])).toContain('cost ? (some models unpriced)')
  })
})

describe('baselineLines', () => {
  it('lists failed gates one by one and sums up the rest', async () => {
    const { baselineLines } = await import('./table.js')
    const gate = (status: 'pass' | 'fail' | 'written', messages: string[]) => ({ status, file: 'evals/seqk.baseline.json', messages, comparisons: [], regressed: [], improved: [], added: [], removed: [], changed: [], protocolChanges: [] })
    const cells = [
      cell('a', 'verifier', [0.5, 1], { gate: gate('pass', []) }),
      cell('b', 'verifier', [0.5, 1], { gate: gate('fail', ['Seq@2 100.0 → 50.0 on 2 common tasks']) }),
      cell('c', 'verifier', [0.5, 1], { gate: gate('written', ['wrote it']) }),
      cell('d', 'verifier', [0.5, 1]),
    ]
    expect(baselineLines(cells)).toEqual(['✗ b · verifier: baseline: Seq@2 100.0 → 50.0 on 2 common tasks', 'baseline evals/seqk.baseline.json: 1 cells without regression, 1 written, 1 failed'])
    expect(baselineLines([cell('d', 'verifier', [0.5, 1])])).toEqual([])
  })
})

describe('revisionTable and historyComparisonLines', () => {
  it('shows criterion repair and next-attempt success for rubric cells only', async () => {
    const { revisionTable, historyComparisonLines } = await import('./table.js')
    const rubric = cell('a', 'critic', [0.5, 1], {
      criterionRepair: { failedFirst: 10, repaired: 7, repairRate: 0.7, passedEarlier: 20, broken: 2, brokenRate: 0.1 },
      nextAttemptSuccess: { changed: { revisions: 8, solved: 6, rate: 0.75 }, unchanged: { revisions: 2, solved: 0, rate: 0 } },
    })
    const lines = revisionTable([rubric, cell('b', 'verifier', [0.5, 1])])
    expect(lines[0]).toBe('revision analysis (criteria, %):')
    expect(lines).toHaveLength(3)
    expect(lines[2]).toMatch(/^a · critic\s+70\.0 \(7\/10\)\s+10\.0 \(2\/20\)\s+75\.0 \(6\/8\)\s+0\.0 \(0\/2\)$/)
    expect(revisionTable([cell('b', 'verifier', [0.5, 1])])).toEqual([])
    expect(historyComparisonLines([{ actorId: 'a', mode: 'critic', baseline: { history: 'full', seqAtK: 0.8 }, other: { history: 'summary', seqAtK: 0.65 }, diff: { point: -0.15, lo: -0.3, hi: -0.05 }, commonTasks: 12 }])).toEqual([
      'history summary vs full (a · critic): Seq@K 80.0 → 65.0, difference -15.0 points (95% CI -30.0 to -5.0) on 12 common tasks',
    ])
  })
})

describe('revisionAnnotationTable', () => {
  const share = (point: number) => ({ point, lo: Math.max(0, point - 0.2), hi: Math.min(1, point + 0.2), level: 0.95, method: 'korn-graubard-ratio/1', tasks: 2 })
  const annotated = cell('a', 'verifier', [0.5, 1], {
    revisionAnnotation: {
      annotator: 'derived', version: 'derived/1', revisions: 12, annotatable: 10, annotated: 10, sampled: false, unobserved: 1,
      classes: {
        unhelpful: { revisions: 2, share: share(0.2), solved: 0, success: share(0) },
        some: { revisions: 3, share: share(0.3), solved: 1, success: share(1 / 3) },
        all: { revisions: 5, share: share(0.5), solved: 4, success: share(0.8) },
      },
    },
  })

  it('gives class shares and next-attempt success per class in %, naming the annotator, within 120 columns', async () => {
    const { revisionAnnotationTable } = await import('./table.js')
    const lines = revisionAnnotationTable([annotated, cell('b', 'binary', [0.5, 1])])
    expect(lines[0]).toBe('revision annotation (derived annotator: the requests are the failing tests and unmet criteria the feedback named; %):')
    expect(lines[1]).toMatch(/^cell\s+annotated\s+unhelpful\s+some\s+all\s+solved: unhelpful\s+some\s+all$/)
    expect(lines).toHaveLength(3)
    expect(lines[2]).toMatch(/^a · verifier\s+10\s+20\.0\s+30\.0\s+50\.0\s+0\.0 \(0\/2\)\s+33\.3 \(1\/3\)\s+80\.0 \(4\/5\)$/)
    expect(revisionAnnotationTable([cell('b', 'binary', [0.5, 1])])).toEqual([])
    const table = renderBenchmarkTable('bench', [annotated])
    expect(table).toContain(lines[2])
    for (const line of table.split('\n')) if (line.includes('annotat') || line.includes('verifier')) expect(line.length).toBeLessThanOrEqual(120)
  })

  it('shows an empty class as a dash and a sample as "n of m"', async () => {
    const { revisionAnnotationTable } = await import('./table.js')
    const sampled = cell('a', 'verifier', [0.5, 1], { revisionAnnotation: { ...annotated.revisionAnnotation!, annotated: 4, sampled: true, classes: { ...annotated.revisionAnnotation!.classes, some: { revisions: 0, share: share(0), solved: 0, success: { point: null, lo: null, hi: null, level: 0.95, method: 'korn-graubard-ratio/1', tasks: 0 } } } } })
    const row = revisionAnnotationTable([sampled])[2]!
    expect(row).toMatch(/^a · verifier\s+4 of 10\s+/)
    expect(row).toMatch(/80\.0 \(4\/5\)$/)
    expect(row).toContain(' — ')
  })
})
