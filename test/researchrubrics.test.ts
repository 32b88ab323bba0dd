// ResearchRubrics: the loader reads its documented compiled rows (CSV and JSON Lines, the rubric a
// JSON string) and the processed JSON Lines the paper's harness reads, from self-written files in
// those shapes (fixtures/researchrubrics/); its verifier grades per item through the local test
// server's rule grader (the OpenAI SDK over a socket) and scores the weighted compliance, a met
// penalty subtracting. HealthBench's reference success rule beside it.
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadResearchRubrics, researchRubricsVerifier } from '../src/benchmarks/researchrubrics.js'
import { rubricGrader, startTestServer, testServerModel, type TestServer } from '../src/testing/index.js'
import { decide, safetyCritical } from '../src/verifiers/rubric/pass-rule.js'
import { healthBenchVerifier } from '../src/benchmarks/healthbench.js'
import { checkVerdict } from '../src/verifiers/verifier.js'

const fixture = (name: string) => new URL(`../fixtures/researchrubrics/${name}`, import.meta.url)
const tmp = mkdtempSync(join(tmpdir(), 'seqk-rr-'))
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ responder: rubricGrader() })
})
afterAll(async () => {
  await server?.close()
  rmSync(tmp, { recursive: true, force: true })
})

describe('loadResearchRubrics', () => {
  it('reads the compiled rows (CSV and JSON Lines) and the processed lines alike', () => {
    const csv = loadResearchRubrics(fixture('compiled.csv'))
    expect(csv.map((t) => t.id)).toEqual([
      'researchrubrics/rr-fixture-001',
      'researchrubrics/rr-fixture-002',
      'researchrubrics/rr-fixture-003',
    ])
    expect(csv[0]!.criteria[0]).toEqual({
      id: 'c1',
      text: 'Mentions "evapotranspiration"',
      points: 1,
      tags: ['Accuracy'],
    })
    expect(csv[0]!.criteria[4]).toMatchObject({ id: 'c5', points: -1 })
    const strip = (ts: typeof csv) => ts.map((t) => ({ id: t.id, prompt: t.prompt, criteria: t.criteria }))
    expect(strip(loadResearchRubrics(fixture('compiled.jsonl')))).toEqual(strip(csv))
    expect(strip(loadResearchRubrics(fixture('processed.jsonl')))).toEqual(strip(csv))
    expect(loadResearchRubrics(fixture('compiled.csv'), { limit: 1 })).toHaveLength(1)
  })

  it('names the line and the field of a malformed record', () => {
    const bad = join(tmp, 'bad.jsonl')
    writeFileSync(bad, `${JSON.stringify({ task_name: 'x', prompt: 'p', rubrics: '[{"title": "T", "weight": 0}]' })}\n`)
    expect(() => loadResearchRubrics(bad)).toThrow(
      /line 1 \(task "x"\) is malformed: .*a weight of 0 counts for nothing/,
    )
    writeFileSync(bad, `${JSON.stringify({ prompt: 'p', rubrics: [] })}\n`)
    expect(() => loadResearchRubrics(bad)).toThrow(/task_name/)
    writeFileSync(bad, `${JSON.stringify({ task_name: 'y', prompt: 'p', rubrics: '[{"title": ' })}\n`)
    expect(() => loadResearchRubrics(bad)).toThrow(/expected a string holding JSON \(the rubric items\)/)
  })
})

describe('researchRubricsVerifier', () => {
  it('grades every item, passes when every positive item is met and no penalty, and scores the weighted compliance', async () => {
    const verifier = researchRubricsVerifier({ grader: testServerModel(server, { model: 'rule-grader' }) })
    const [task] = loadResearchRubrics(fixture('compiled.csv'))
    const good = 'Trees cool cities through evapotranspiration and shade. Source: a 2020 review.'
    const ok = checkVerdict(verifier, await verifier.verify(task!, good))
    expect(ok).toMatchObject({ pass: true, score: 1 })
    // Of the positive weights (1 + 1 + 0.5 + 0.5 = 3) it misses "source:" (0.5) and triggers the penalty (-1): (2.5 - 1) / 3.
    const bad = 'Shade and evapotranspiration cool streets; the effect is guaranteed.'
    const v = checkVerdict(verifier, await verifier.verify(task!, bad))
    expect(v.pass).toBe(false)
    expect(v.score).toBeCloseTo(0.5, 12)
    expect(verifier.settings).toMatchObject({ passRule: 'all', score: 'weighted', gradingMode: 'per-criterion' })
  })
})

describe("HealthBench's reference success rule", () => {
  const v = (id: string, text: string, points: number, met: boolean) => ({ id, text, points, met })

  it('needs positive points met >= 0.75, no penalty met and no safety-critical item unmet', () => {
    const base = [
      v('a', 'Explains the dosage', 6, true),
      v('b', 'Mentions follow-up', 2, false),
      v('p', 'Recommends a brand', -3, false),
    ]
    expect(decide(base, 'healthbench-reference')).toMatchObject({ pass: true, score: 0.75 })
    expect(
      decide([...base.slice(0, 2), v('p', 'Recommends a brand', -3, true)], 'healthbench-reference'),
    ).toMatchObject({
      pass: false,
      score: 0.75,
    })
    const unsafe = [v('a', 'Explains the dosage', 9, true), v('s', 'Advises to seek emergency care', 1, false)]
    const d = decide(unsafe, 'healthbench-reference')
    expect(d).toMatchObject({ pass: false, score: 0.9 })
    expect(d.summary).toBe('score 0.9 (positive points met) >= 0.75; unmet: s; unmet safety-critical: s')
    // A tag can make an item safety-critical too.
    expect(
      decide(
        [v('a', 'Explains', 9, true), v('t', 'Mentions rest', 1, false)],
        'healthbench-reference',
        undefined,
        new Map([['t', ['axis:harm']]]),
      ).pass,
    ).toBe(false)
    expect(decide([v('a', 'Explains', 7, true), v('b', 'Mentions rest', 3, false)], 'healthbench-reference').pass).toBe(
      false,
    )
  })

  it('recognises safety-critical words in the text or the tags, any case', () => {
    for (const text of [
      'Mentions SAFETY',
      'Warns of harm',
      'Says it is urgent',
      'Notes contraindications',
      'Lists adverse effects',
      'Flags danger',
      'Is it safe',
    ])
      expect(safetyCritical(text)).toBe(true)
    expect(safetyCritical('Explains the dosage', ['theme:emergency_referrals'])).toBe(true)
    expect(safetyCritical('Explains the dosage', ['theme:hedging'])).toBe(false)
  })

  it('is an option of the HealthBench verifier, named in its settings', () => {
    const verifier = healthBenchVerifier({
      grader: testServerModel(server, { model: 'rule-grader' }),
      threshold: 'reference',
    })
    expect(verifier.settings.passRule).toBe('healthbench-reference/1')
  })
})
