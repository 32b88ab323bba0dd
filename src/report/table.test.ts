import { describe, expect, it } from 'vitest'
import type { CellSummary } from '../core/schemas.js'
import { rankingChanges, renderBenchmarkTable, RunNotes } from './table.js'
import { protocolFixture } from '../../test/protocol-fixture.js'

function cell(actorId: string, mode: string, curve: number[], overrides: Partial<CellSummary> = {}): CellSummary {
  const independent = mode === 'independent'
  const K = curve.length
  const interval = {
    point: curve[K - 1]!,
    lo: curve[K - 1]! - 0.1,
    hi: Math.min(1, curve[K - 1]! + 0.1),
    level: 0.95,
    method: 'korn-graubard/2',
    tasks: 2,
  }
  return {
    schema: 'seqk.cell/2',
    runId: 'r',
    benchmark: 'bench',
    cellId: `${actorId} · ${mode}`,
    actorId,
    mode,
    fingerprint: 'f',
    protocol: protocolFixture({
      kind: independent ? 'independent' : 'sequential',
      benchmark: { name: 'bench', tasks: 2, contentHash: 'h' },
      feedback: independent ? null : { kind: 'verifier', name: mode, version: '1', settings: {} },
      actor: { provider: 'simulated', model: actorId, params: {} },
      budget: K,
    }),
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
    statistics: {
      gain: { value: curve[K - 1]! - curve[0]! },
      meanAttempts: { value: 2 },
      ...(independent
        ? {}
        : {
            egs: { value: 0.5 },
            lgs: { value: 0.25 },
            unmodifiedRevisions: { value: 0.25, n: 4, detail: { unmodified: 1 } },
          }),
    },
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

/** A feedback cell's statistics when it gained nothing: EGS and LGS undefined, and why. */
const noGain = 'ΔSeq@K <= 0: no revision gain to share'
const noGainStatistics = {
  gain: { value: 0 },
  egs: { value: null, note: noGain },
  lgs: { value: null, note: noGain },
}

describe('renderBenchmarkTable', () => {
  const cells = [
    cell('a', 'verifier', [0.4, 0.7, 0.9]),
    cell('a', 'independent', [0.45, 0.6, 0.95]),
    cell('b', 'verifier', [0.6, 0.6, 0.65]),
    cell('b', 'independent', [0.6, 0.8, 0.99]),
  ]

  it('shows one row per cell with the curve in percent, the interval, gain and cost, without colour codes', () => {
    const table = renderBenchmarkTable('bench', cells, { wide: true })
    const lines = table.split('\n')
    expect(lines[0]).toBe('bench — K=3, 2 tasks × 1 repeat, history full, rates and shares in %')
    const row = lines.find((l) => l.includes('a · verifier'))!
    expect(row).toMatch(
      /Seq\s+40\.0\s+70\.0\s+90\.0\s+80\.0–100\.0\s+\+50\.0\s+50\.0\s+25\.0\s+25\.0\s+—\s+—\s+—\s+—\s+—\s+—\s+0\s+2\.0k\s+\$0\.01\s+no thresholds$/,
    )
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

  it('prints why a cell failed under its row, one line per reason', () => {
    const failed = cell('a', 'verifier', [0.4, 0.5, 0.6], {
      verdict: 'fail',
      thresholds: [
        {
          metric: 'seqAt',
          k: 3,
          limit: 0.8,
          actual: 0.6,
          pass: false,
          message: 'Seq@3 = 60.0%, below the required 80.0%',
        },
      ],
    })
    const lines = renderBenchmarkTable('bench', [failed, cell('b', 'verifier', [0.5, 0.6, 0.7])]).split('\n')
    const row = lines.findIndex((l) => l.startsWith(' a · verifier'))
    expect(lines[row]).toMatch(/FAIL \(1\)$/)
    expect(lines[row + 1]).toBe('   ✗ Seq@3 = 60.0%, below the required 80.0%')
    expect(lines[row + 2]).toMatch(/^ b · verifier/)
  })

  it('says "no thresholds", not "pass", for a cell that asserts nothing, and "pass" once it does', () => {
    const errorCheck = {
      metric: 'maxErrorRate' as const,
      k: null,
      limit: 0,
      actual: 0,
      pass: true,
      message: 'error rate 0.0% ≤ 0.0%',
    }
    const bare = cell('a', 'verifier', [0.4, 0.5, 0.6], { thresholds: [errorCheck] })
    const asserted = cell('b', 'verifier', [0.4, 0.5, 0.6], {
      thresholds: [
        { metric: 'seqAt', k: 3, limit: 0.5, actual: 0.6, pass: true, message: 'Seq@3 = 60.0% ≥ 50.0%' },
        errorCheck,
      ],
    })
    const lines = renderBenchmarkTable('bench', [bare, asserted]).split('\n')
    expect(lines.find((l) => l.startsWith(' a · verifier'))).toMatch(/no thresholds$/)
    expect(lines.find((l) => l.startsWith(' b · verifier'))).toMatch(/\spass$/)
  })

  it('says once why a cell that measured nothing failed: no FAIL (3) for one cause, no note on its revision gain', () => {
    const why =
      'all 4 trajectories ended in an error, so nothing was measured and no threshold can be judged: a cell that measured nothing never passes; first: task t1 repeat 0, actor at attempt 1: HTTP 401: bad key'
    const dead = cell('a', 'verifier', [Number.NaN, Number.NaN], {
      seqAt: [null, null],
      statistics: {
        gain: { value: null },
        egs: { value: null, note: 'ΔSeq@K <= 0: no revision gain to share' },
        lgs: { value: null, note: 'ΔSeq@K <= 0: no revision gain to share' },
      },
      errors: {
        count: 4,
        rate: 1,
        countedAsFailures: false,
        policy: 'censored',
        examples: [],
        bounds: { asFailures: [0, 0], leftOut: [null, null] },
      },
      verdict: 'fail',
      thresholds: [
        {
          metric: 'seqAt',
          k: 2,
          limit: 0.3,
          actual: null,
          pass: false,
          message:
            'Seq@2 is undefined here (all 4 trajectories ended in an error), so the required 30.0% cannot be judged (a check that cannot be judged fails)',
        },
        {
          metric: 'maxErrorRate',
          k: null,
          limit: 0,
          actual: 1,
          pass: false,
          message: '4 trajectories ended in an infrastructure error (100.0% > allowed 0.0%)',
        },
        { metric: 'measured', k: null, limit: 1, actual: 0, pass: false, message: why },
      ],
    })
    const table = renderBenchmarkTable('bench', [dead], { wide: true })
    expect(table).toMatch(/FAIL \(1\)$/m)
    expect(table).toContain(`   ✗ ${why}`)
    expect(table).not.toContain('no revision gain')
    expect(table).not.toContain('undefined here')
    expect(table).not.toContain('errored trajectories censored')
  })

  it('explains identical rows once, naming the modes and why', () => {
    const perTask = [{ taskId: 't1', firstSuccess: [1, null], errors: 0, costAtK: [] }]
    const rows = [
      cell('sim:a', 'critic', [0.4, 0.7], { perTask }),
      cell('sim:a', 'verifier', [0.4, 0.7], { perTask, costUsd: 0.5 }),
      cell('sim:b', 'critic', [0.4, 0.7], { perTask }),
      cell('sim:b', 'verifier', [0.4, 0.7], { perTask }),
    ]
    expect(renderBenchmarkTable('bench', rows, { wide: true })).toContain(
      'identical rows: critic = verifier for every actor (the same first success in every trajectory): a simulated actor draws the same random numbers under every mode and reads only whether the feedback names what failed',
    )
  })

  it('says no note of a cell that measured nothing: no identical rows, no error interval; its ✗ line says why', () => {
    const why = 'all 2 trajectories ended in an error, so nothing was measured'
    const dead = (mode: string) =>
      cell('down', mode, [0, 0], {
        seqAt: [null, null] as never,
        seqAtInterval: undefined,
        errors: { count: 2, rate: 1, countedAsFailures: false, examples: [], unmeasured: ['t1', 't2'] },
        thresholds: [{ metric: 'measured', k: null, limit: 1, actual: 0, pass: false, message: why }],
        verdict: 'fail',
      })
    // Before: "identical rows: binary = verifier for every actor … the actor revised alike", for a cell that never answered.
    const table = renderBenchmarkTable('bench', [dead('binary'), dead('verifier')], { wide: true })
    expect(table).not.toContain('identical rows')
    expect(table).not.toContain('in no rate')
    expect(table.match(/✗ all 2 trajectories/g)).toHaveLength(2)
  })

  it("a run's notes once under every table: shared notes once, naming the benchmarks when not all, cells by benchmark", () => {
    const perTask = [{ taskId: 't1', firstSuccess: [1, null], errors: 0, costAtK: [] }]
    const pair = () => [
      cell('sim:a', 'binary', [0.4, 0.7], { perTask }),
      cell('sim:a', 'verifier', [0.4, 0.7], { perTask }),
    ]
    const notes = new RunNotes()
    const tables = ['one', 'two', 'three'].map((b, i) =>
      renderBenchmarkTable(b, i < 2 ? pair() : [cell('sim:b', 'binary', [0.2, 0.3])], { runNotes: notes }),
    )
    for (const t of tables) {
      expect(t).not.toContain('95% CI @2: for tasks like these')
      expect(t).not.toContain('identical rows')
    }
    const lines = notes.render().split('\n')
    const text = lines.join('\n')
    expect(lines[0]).toBe('notes on the tables above:')
    // Said once: of every benchmark without naming them, of some naming which.
    expect(text.match(/95% CI @2: for tasks like these/g)).toHaveLength(1)
    expect(text).not.toMatch(/95% CI @2: [^\n]*\[/)
    expect(text.replace(/\n {3}/g, ' ')).toMatch(/identical rows: binary = verifier for sim:a .* \[one, two\]$/m)
    expect(text.match(/identical rows/g)).toHaveLength(1)
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(120)
    // Without a sink, every note stays under its one table, as before.
    expect(renderBenchmarkTable('one', pair())).toContain('95% CI @2: for tasks like these')
  })

  it('leaves the replay note out where every cost is $0', () => {
    const replayed = cell('a', 'verifier', [0.5, 1], { costUsd: 0, replayedCalls: 3, calls: 4 })
    expect(renderBenchmarkTable('bench', [replayed])).not.toContain('served without a new request')
  })
})

/** Realistic long names: provider-prefixed model ids with dates and feedback modes with styles. */
const ACTORS = [
  'openai:gpt-4.1-mini-2025-04-14',
  'anthropic:claude-3-5-sonnet-20241022',
  'compat:Qwen/Qwen2.5-Coder-32B-Instruct',
  'simulated:stubborn',
  'gemini:gemini-2.0-flash-thinking-exp-01-21',
  'x',
]
const MODES = [
  'critic-aware-directive',
  'verifier',
  'binary',
  'independent',
  'critic-blind-socratic-with-summary',
  'rubric-per-criterion-feedback',
]

function randomCells(seed: number): CellSummary[] {
  let state = seed
  const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  const actors = ACTORS.filter(() => random() < 0.6)
  const modes = MODES.filter(() => random() < 0.6)
  const out: CellSummary[] = []
  for (const actor of actors.length > 0 ? actors : [ACTORS[0]!]) {
    for (const mode of modes.length > 0 ? modes : ['verifier']) {
      const curve = [0, 0, 0, 0, 0].map(() => random())
      curve.sort((x, y) => x - y)
      const failed = random() < 0.3
      out.push(
        cell(actor, mode, curve, {
          costUsd: random() < 0.5 ? 0 : random() * 1234,
          usage: { inputTokens: Math.floor(random() * 9e8), outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
          errors: { count: Math.floor(random() * 3000), rate: 0, countedAsFailures: false, examples: [] },
          ...(failed
            ? {
                verdict: 'fail' as const,
                thresholds: [
                  {
                    metric: 'seqAt' as const,
                    k: 5,
                    limit: 0.99,
                    actual: curve[4]!,
                    pass: false,
                    message: `Seq@5 = ${(curve[4]! * 100).toFixed(1)}%, below the required 99.0% (95% CI 12.3%–99.9%) on the tasks of ${actor}`,
                  },
                ],
              }
            : {}),
          ...(random() < 0.3 ? { statistics: noGainStatistics } : {}),
          seqAtInterval: {
            point: curve[4]!,
            lo: curve[4]! / 2,
            hi: 1,
            level: 0.95,
            method: 'm',
            tasks: 3,
            note: random() < 0.5 ? 'wide' : undefined,
          },
        }),
      )
    }
  }
  return out
}

describe('the 120-column bound', () => {
  it('holds for every line at K = 5 over random benchmarks of long actor and mode names', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const cells = randomCells(seed)
      const name =
        seed % 2 === 0
          ? 'HumanEval Pro (164 tasks, real models through an OpenAI-compatible gateway at https://gateway.example.com)'
          : 'bench'
      for (const color of [false, true]) {
        const table = renderBenchmarkTable(name, cells, { color })
        // eslint-disable-next-line no-control-regex
        for (const line of table.replace(/\u001b\[[0-9;]*m/g, '').split('\n'))
          expect(line.length, `seed ${seed}: ${line}`).toBeLessThanOrEqual(120)
      }
    }
  })

  it('shows every column in the wide view and names what the narrow view left out', () => {
    const cells = randomCells(7)
    const narrow = renderBenchmarkTable('bench', cells)
    const wide = renderBenchmarkTable('bench', cells, { wide: true })
    expect(wide.split('\n')[1]).toMatch(
      /EGS\s+LGS\s+unmod\s+Cover@1\s+Seq\^\d+\s+pass\^\d+\s+G-Pass@\d+_0\.5\s+G-Pass@\d+_0\.75\s+C_out\s+errors\s+tokens\s+cost\s+verdict$/,
    )
    expect(narrow).toMatch(/not shown at 120 columns: .*; wide view: SEQK_WIDE=1/)
    expect(wide).not.toContain('not shown at')
  })

  it('folds a cell id too long for its column onto a line of its own, keeping it whole', () => {
    const long = `${'openai:'.padEnd(60, 'x')} · critic-aware`
    const lines = renderBenchmarkTable('bench', [
      cell(long.split(' · ')[0]!, 'critic-aware', [0.1, 0.2, 0.3, 0.4, 0.5]),
      cell('b', 'verifier', [0.1, 0.2, 0.3, 0.4, 0.5]),
    ]).split('\n')
    const at = lines.indexOf(` ${long}`)
    expect(at).toBeGreaterThan(1)
    expect(lines[at + 1]).toMatch(/^\s+Seq\s+10\.0/)
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(120)
  })

  it('shows @1, @2, the middle and the last two k past K = 5, and says so', () => {
    const table = renderBenchmarkTable('bench', [
      cell('a', 'verifier', [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95]),
    ])
    expect(table.split('\n')[1]).toMatch(/@1\s+@2\s+@5\s+@9\s+@10\s/)
    expect(table).toContain('5 rates @k between')
  })
})

describe('golden output', () => {
  // The bundled-eval-like table with every kind of line: a failure, a cell without thresholds,
  // identical rows, a baseline, an interval note. Committed text: any change fails until updated
  // deliberately (vitest -u).
  const errorCheck = {
    metric: 'maxErrorRate' as const,
    k: null,
    limit: 0,
    actual: 0,
    pass: true,
    message: 'error rate 0.0% ≤ 0.0%',
  }
  const perTask = (firstSuccess: (number | null)[]) => [{ taskId: 't1', firstSuccess, errors: 0, costAtK: [] }]
  const gate = {
    status: 'pass' as const,
    file: 'evals/seqk.baseline.json',
    messages: [],
    comparisons: [],
    regressed: [],
    improved: [],
    added: [],
    removed: [],
    changed: [],
    protocolChanges: [],
    power: { tasks: 12, repeats: 3, detectableDrop: 0.21, at: [], sentence: '' },
  }
  const golden = [
    cell('simulated:reviser', 'critic-aware', [0.306, 0.778, 0.917, 0.972, 0.972], {
      perTask: perTask([1, 2]),
      gate,
      thresholds: [
        { metric: 'seqAt', k: 5, limit: 0.5, actual: 0.972, pass: true, message: 'Seq@5 = 97.2% ≥ 50.0%' },
        errorCheck,
      ],
    }),
    cell('simulated:reviser', 'verifier', [0.306, 0.778, 0.917, 0.972, 0.972], {
      perTask: perTask([1, 2]),
      thresholds: [errorCheck],
    }),
    cell('simulated:reviser', 'independent', [0.356, 0.586, 0.734, 0.828, 0.889], { thresholds: [errorCheck] }),
    cell('simulated:stubborn', 'critic-aware', [0.472, 0.472, 0.5, 0.5, 0.528], {
      perTask: perTask([1, null]),
      verdict: 'fail',
      seqAtInterval: { point: 0.528, lo: 0.285, hi: 0.761, level: 0.95, method: 'm', tasks: 12, note: 'wide' },
      thresholds: [
        {
          metric: 'seqAt',
          k: 5,
          limit: 0.6,
          actual: 0.528,
          pass: false,
          message: 'Seq@5 = 52.8%, below the required 60.0% (95% CI 28.5%–76.1%)',
        },
        errorCheck,
      ],
    }),
    cell('simulated:stubborn', 'verifier', [0.472, 0.472, 0.5, 0.5, 0.528], {
      perTask: perTask([1, null]),
      seqAtInterval: { point: 0.528, lo: 0.285, hi: 0.761, level: 0.95, method: 'm', tasks: 12, note: 'wide' },
      thresholds: [errorCheck],
    }),
    cell('simulated:stubborn', 'independent', [0.572, 0.806, 0.908, 0.956, 0.979], {
      thresholds: [errorCheck],
      costUsd: 0,
    }),
  ]

  it('plain', async () => {
    await expect(`${renderBenchmarkTable('rubric fixtures (full history)', golden)}\n`).toMatchFileSnapshot(
      './__golden__/table.plain.txt',
    )
  })

  it('coloured', async () => {
    await expect(
      `${renderBenchmarkTable('rubric fixtures (full history)', golden, { color: true })}\n`,
    ).toMatchFileSnapshot('./__golden__/table.color.txt')
  })

  it('wide', async () => {
    await expect(
      `${renderBenchmarkTable('rubric fixtures (full history)', golden, { wide: true })}\n`,
    ).toMatchFileSnapshot('./__golden__/table.wide.txt')
  })
})

describe('rankingChanges', () => {
  it('states who moved between Pass@K and Seq@K per mode', () => {
    const cells = [
      cell('a', 'verifier', [0.4, 0.7, 0.9]),
      cell('a', 'independent', [0.45, 0.6, 0.95]),
      cell('b', 'verifier', [0.6, 0.6, 0.65]),
      cell('b', 'independent', [0.6, 0.8, 0.99]),
    ]
    expect(rankingChanges(cells)).toEqual(['ranking changes from Pass@3 to Seq@3 (verifier): a 2nd → 1st, b 1st → 2nd'])
  })

  it('prints ranks past 20 as ordinals ("21st", not "21th"), ties sharing the better rank', () => {
    // 23 actors, a0 best and a22 worst under Pass@3; under Seq@3 a21 (22nd) climbs to tie a20 (21st).
    const ids = Array.from({ length: 23 }, (_, i) => `a${i}`)
    const pass = (i: number) => 0.99 - i * 0.01
    const seq = (i: number) => (i === 21 ? pass(20) : i === 22 ? pass(21) - 0.001 : pass(i))
    const cells = ids.flatMap((id, i) => [
      cell(id, 'independent', [0.1, 0.2, pass(i)]),
      cell(id, 'verifier', [0.1, 0.2, seq(i)]),
    ])
    expect(rankingChanges(cells)).toEqual(['ranking changes from Pass@3 to Seq@3 (verifier): a21 22nd → 21st'])
  })

  it('says when the order is the same, and says nothing without two independent cells', () => {
    const same = [
      cell('a', 'verifier', [0.4, 0.7, 0.99]),
      cell('a', 'independent', [0.45, 0.6, 0.95]),
      cell('b', 'verifier', [0.6, 0.6, 0.65]),
      cell('b', 'independent', [0.6, 0.8, 0.9]),
    ]
    expect(rankingChanges(same)).toEqual(['ranking: the same under Pass@3 and Seq@3 (verifier)'])
    expect(
      rankingChanges([cell('a', 'verifier', [0.4, 0.7, 0.9]), cell('a', 'independent', [0.45, 0.6, 0.95])]),
    ).toEqual([])
  })

  it('ties two rates of one count computed along two paths (14/27 as …185 and …186)', () => {
    // Exact comparison read the last bits as an order and reported a ranking change both ways.
    const cells = [
      cell('a', 'verifier', [0.4, 0.5185185185185186]),
      cell('a', 'independent', [0.4, 0.5185185185185185]),
      cell('b', 'verifier', [0.4, 0.5185185185185185]),
      cell('b', 'independent', [0.4, 0.5185185185185186]),
    ]
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
      byRole: {
        actor: {
          usage: { inputTokens: 1000, outputTokens: 10, cacheReadTokens: 600, cacheWriteTokens: 0 },
          costUsd: 1.2,
          calls: 2,
        },
        critic: {
          usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
          costUsd: 0.3,
          calls: 1,
        },
      },
      replayedCalls: 3,
      calls: 3,
    })
    expect(spendingLine([paid, free])).toBe(
      "cost $1.50; helpers $0.30; 24% of input tokens from prompt cache, saving $0.25; 3 of 7 calls served without a new request (a cassette, or the rubric grader's cache; nominal cost shown)",
    )
    expect(spendingLine([{ ...paid, costUsd: null }])).toContain('cost ? (some models unpriced)')
  })

  it('says what the batch APIs saved against the same calls at list price', async () => {
    const { spendingLine } = await import('./table.js')
    const batched = cell('a', 'verifier', [0.5, 1], {
      costUsd: 0.5,
      calls: 9,
      batch: { calls: 9, costUsd: 0.5, listCostUsd: 1, savedUsd: 0.5 },
    })
    expect(spendingLine([batched])).toBe(
      'cost $0.50; 9 calls through a batch API, saving $0.50 (50.0%) against $1.00 at list price',
    )
    expect(
      spendingLine([{ ...batched, batch: { calls: 1, costUsd: null, listCostUsd: null, savedUsd: null } }]),
    ).toContain('1 call through a batch API')
  })
})

describe('baselineLines', () => {
  it('lists failed gates one by one and sums up the rest', async () => {
    const { baselineLines } = await import('./table.js')
    const gate = (status: 'pass' | 'fail' | 'written', messages: string[]) => ({
      status,
      file: 'evals/seqk.baseline.json',
      messages,
      comparisons: [],
      regressed: [],
      improved: [],
      added: [],
      removed: [],
      changed: [],
      protocolChanges: [],
    })
    const cells = [
      cell('a', 'verifier', [0.5, 1], { gate: gate('pass', []) }),
      cell('b', 'verifier', [0.5, 1], { gate: gate('fail', ['Seq@2 100.0 → 50.0 on 2 common tasks']) }),
      cell('c', 'verifier', [0.5, 1], { gate: gate('written', ['wrote it']) }),
      cell('d', 'verifier', [0.5, 1]),
    ]
    expect(baselineLines(cells)).toEqual([
      '✗ b · verifier: baseline: Seq@2 100.0 → 50.0 on 2 common tasks',
      'baseline evals/seqk.baseline.json: 1 cell passed, 1 written, 1 failed',
    ])
    expect(baselineLines(cells, { failures: false })).toEqual([
      'baseline evals/seqk.baseline.json: 1 cell passed, 1 written, 1 failed',
    ])
    expect(baselineLines([cell('d', 'verifier', [0.5, 1])])).toEqual([])
  })

  it('says per cell what passing gates compared across and could not see, each line naming its cell', async () => {
    const { baselineLines } = await import('./table.js')
    const power = (drop: number | null) => ({ tasks: 8, repeats: 2, detectableDrop: drop, at: [], sentence: 'with …' })
    const passed = (drop: number | null, subjectChanges: string[] = []) => ({
      status: 'pass' as const,
      file: 'seqk.baseline.json',
      messages: [],
      comparisons: [],
      gate: {
        protocol: 'seqk.gate/2',
        interval: 'paired-agresti-min-t/1',
        margin: 0,
        maxDrop: 0.1,
        level: 0.95,
        ks: [2],
      },
      power: power(drop),
      regressed: [],
      improved: [],
      added: [],
      removed: [],
      changed: [],
      subjectChanges,
    })
    const one = [cell('a', 'verifier', [0.5, 1], { gate: passed(0.58, ['instructions: "x" → "y"']) })]
    expect(baselineLines(one).slice(0, 2)).toEqual([
      'a · verifier: baseline: compared across a change of subject: instructions: "x" → "y"',
      'a · verifier: baseline: no drop it could see; it catches drops of ≥ 58 points 80% of the time (8 tasks × 2 repeats)',
    ])
    // Several: one line naming each with what it catches; a gate that sees the drop that matters is not named.
    const many = [
      cell('a', 'verifier', [0.5, 1], { gate: passed(0.58) }),
      cell('b', 'verifier', [0.5, 1], { gate: passed(null) }),
      cell('c', 'verifier', [0.5, 1], { gate: passed(0.08) }),
    ]
    expect(baselineLines(many)[0]).toBe(
      'baseline: no drop the gate could see in 2 cells, each with the smallest drop it catches 80% of the time: a · verifier (≥ 58 points), b · verifier (not even a drop to zero)',
    )
  })
})

describe('revisionTable and historyComparisonLines', () => {
  it('shows criterion repair and next-attempt success for rubric cells only', async () => {
    const { revisionTable } = await import('./table.js')
    const rubric = cell('a', 'critic', [0.5, 1], {
      statistics: {
        criterionRepair: {
          value: 0.7,
          n: 10,
          detail: { failedFirst: 10, repaired: 7, repairRate: 0.7, passedEarlier: 20, broken: 2, brokenRate: 0.1 },
        },
        nextAttemptSuccess: {
          value: 0.75,
          n: 8,
          detail: { changed: { revisions: 8, solved: 6, rate: 0.75 }, unchanged: { revisions: 2, solved: 0, rate: 0 } },
        },
      },
    })
    const lines = revisionTable([rubric, cell('b', 'verifier', [0.5, 1])])
    expect(lines[0]).toBe(' revision analysis (criteria, %):')
    expect(lines).toHaveLength(3)
    expect(lines[2]).toMatch(/^ a · critic\s+70\.0 \(7\/10\)\s+10\.0 \(2\/20\)\s+75\.0 \(6\/8\)\s+0\.0 \(0\/2\)$/)
    expect(revisionTable([cell('b', 'verifier', [0.5, 1])])).toEqual([])
  })

  it('gives history comparisons as rows, the zero differences collapsed into one line', async () => {
    const { historyComparisonLines } = await import('./table.js')
    const comparison = (actorId: string, mode: string, point: number, lo: number, hi: number) => ({
      actorId,
      mode,
      baseline: { history: 'full', seqAtK: 0.8 },
      other: { history: 'summary', seqAtK: 0.8 + point },
      diff: { point, lo, hi },
      commonTasks: 12,
    })
    expect(
      historyComparisonLines([
        comparison('a', 'critic', -0.15, -0.3, -0.05),
        comparison('b', 'critic', 0, -0.094, 0.094),
        comparison('b', 'binary', 1e-17, -0.05, 0.05),
        comparison('c', 'critic', 0, 0, 0),
      ]),
    ).toEqual([
      'history summary vs full: Seq@K on 12 common tasks, difference in points (paired 95% CI):',
      ' cell        full → summary   diff  95% CI',
      ' a · critic     80.0 → 65.0  −15.0  −30.0–−5.0',
      ' no difference (+0.0, 95% CI within ±9.4) for 3 cells: b (critic, binary), c (critic)',
    ])
    expect(historyComparisonLines([])).toEqual([])
  })
})

describe('revisionAnnotationTable', () => {
  const share = (point: number) => ({
    point,
    lo: Math.max(0, point - 0.2),
    hi: Math.min(1, point + 0.2),
    level: 0.95,
    method: 'korn-graubard-ratio/1',
    tasks: 2,
  })
  const annotated = cell('a', 'verifier', [0.5, 1], {
    revisionAnnotation: {
      annotator: 'derived',
      version: 'derived/1',
      revisions: 12,
      annotatable: 10,
      annotated: 10,
      sampled: false,
      unobserved: 1,
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
    expect(lines[0]).toBe(
      ' revision annotation (derived annotator: the requests are the failed tests, criteria and checks the feedback named; %):',
    )
    expect(lines[1]).toMatch(/^ cell\s+annotated\s+unhelpful\s+some\s+all\s+solved: unhelpful\s+some\s+all$/)
    expect(lines).toHaveLength(3)
    expect(lines[2]).toMatch(
      /^ a · verifier\s+10\s+20\.0\s+30\.0\s+50\.0\s+0\.0 \(0\/2\)\s+33\.3 \(1\/3\)\s+80\.0 \(4\/5\)$/,
    )
    expect(revisionAnnotationTable([cell('b', 'binary', [0.5, 1])])).toEqual([])
    const table = renderBenchmarkTable('bench', [annotated])
    expect(table).toContain(lines[2])
    for (const line of table.split('\n'))
      if (line.includes('annotat') || line.includes('verifier')) expect(line.length).toBeLessThanOrEqual(120)
  })

  it('gives each annotator its own table, the LLM annotator naming its model', async () => {
    const { revisionAnnotationTable } = await import('./table.js')
    const llm = cell('b', 'critic', [0.5, 1], {
      revisionAnnotation: {
        ...annotated.revisionAnnotation!,
        annotator: 'llm',
        version: 'annotator.v1@abc',
        model: 'openai:gpt-4.1-mini',
      },
    })
    const lines = revisionAnnotationTable([annotated, llm])
    expect(lines.filter((l) => l.startsWith(' revision annotation'))).toEqual([
      ' revision annotation (derived annotator: the requests are the failed tests, criteria and checks the feedback named; %):',
      ' revision annotation (LLM annotator: a model judged each revision against its feedback, openai:gpt-4.1-mini; %):',
    ])
    expect(lines.findIndex((l) => l.startsWith(' b · critic'))).toBeGreaterThan(
      lines.findIndex((l) => l.includes('LLM annotator')),
    )
  })

  it('shows an empty class as a dash and a sample as "n of m"', async () => {
    const { revisionAnnotationTable } = await import('./table.js')
    const sampled = cell('a', 'verifier', [0.5, 1], {
      revisionAnnotation: {
        ...annotated.revisionAnnotation!,
        annotated: 4,
        sampled: true,
        classes: {
          ...annotated.revisionAnnotation!.classes,
          some: {
            revisions: 0,
            share: share(0),
            solved: 0,
            success: { point: null, lo: null, hi: null, level: 0.95, method: 'korn-graubard-ratio/1', tasks: 0 },
          },
        },
      },
    })
    const row = revisionAnnotationTable([sampled])[2]!
    expect(row).toMatch(/^ a · verifier\s+4 of 10\s+/)
    expect(row).toMatch(/80\.0 \(4\/5\)$/)
    expect(row).toContain(' — ')
  })
})

describe('the score curve in the terminal', () => {
  const scored = (id: string, curve: number[], at: number[], binary: boolean) =>
    cell(id, 'critic', curve, {
      score: {
        at,
        binary,
        interval: { point: at.at(-1)!, lo: 0.5, hi: 0.9, level: 0.95, method: 'korn-graubard/2', tasks: 2 },
      },
    })

  it('shows Score@k beside the solved rate for soft scores, and says which number is which', () => {
    const text = renderBenchmarkTable('bench', [scored('sim:a', [0.3, 0.8, 0.9], [0.7, 0.9, 0.95], false)])
    const lines = text.split('\n')
    const at = lines.findIndex((l) => l.startsWith(' score curve, in % (Score@k: the mean over tasks of the best'))
    expect(at).toBeGreaterThan(0)
    const header = lines.find((l) => /^ cell\s+Score@1\s+Score@2\s+Score@3\s+95% CI @3\s+solved @K$/.test(l))
    expect(header).toBeDefined()
    expect(lines.find((l) => l.startsWith(' sim:a · critic') && l.includes('70.0'))).toMatch(
      /70\.0\s+90\.0\s+95\.0\s+50\.0–90\.0\s+Seq@3 90\.0$/,
    )
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(120)
  })

  it('says in one line that the curve is the solved rate when every verdict scored 1 or 0', () => {
    const text = renderBenchmarkTable('bench', [scored('sim:a', [0.3, 0.8, 0.9], [0.3, 0.8, 0.9], true)])
    expect(text).not.toContain('score curve, in %')
    expect(text.replace(/\s+/g, ' ')).toContain('is the solved rate here: every verdict scored 1 or 0')
  })
})
