// A composed verifier (verifiers.all) in the loop: its checks' kinds and settings are in the
// protocol, each attempt records each check's verdict, verifier feedback names the failed checks,
// and the derived annotator reads which of them a revision fixed.
import { describe, expect, it } from 'vitest'
import { verifierFeedback } from '../feedback/verifier-feedback.js'
import { simulatedActor } from '../models/simulated.js'
import { all } from '../verifiers/composed.js'
import { json } from '../verifiers/json.js'
import { numeric } from '../verifiers/numeric.js'
import { regex } from '../verifiers/regex.js'
import { cellProtocol, runCell } from './cell.js'
import type { Task } from './task.js'
import { cellSpec } from './test-helpers.js'

const right = (total: number) => JSON.stringify({ total, date: '2025-03-14' })
const tasks: Task[] = [1234.5, 99, 12.25, 640].map((total, i) => ({
  id: `invoice/${i + 1}`,
  prompt: 'Extract {"total", "date"} from the invoice as JSON.',
  expected: total,
  simulation: {
    difficulty: 0.5,
    correct: [right(total)],
    // Wrong in one field each, so the feedback names one check, and once in both.
    wrong: [
      JSON.stringify({ total: total + 1, date: '2025-03-14' }),
      JSON.stringify({ total, date: '14/03/2025' }),
      'the total is 14',
    ],
  },
}))
const checks = () => [
  json(),
  numeric({ path: 'total', tolerance: 0.005 }),
  regex(/^\d{4}-\d{2}-\d{2}$/, { path: 'date' }),
]

describe('a composed verifier in a cell', () => {
  it("puts every check's kind and settings in the protocol: changing one check changes the fingerprint", () => {
    const spec = (verifier = all(checks())) => cellSpec(tasks, simulatedActor({ profile: 'reviser' }), { verifier })
    const protocol = cellProtocol(spec())
    expect(protocol.verifier.name).toBe('all')
    expect(JSON.parse(protocol.verifier.settings.checks as string)).toEqual([
      { name: 'json', verifier: 'json', version: '1', settings: expect.objectContaining({ fenced: true }) },
      {
        name: 'numeric(total)',
        verifier: 'numeric',
        version: '2',
        settings: expect.objectContaining({ tolerance: 0.005 }),
      },
      { name: 'regex(date)', verifier: 'regex', version: '1', settings: expect.objectContaining({ path: 'date' }) },
    ])
    const looser = all([
      json(),
      numeric({ path: 'total', tolerance: 0.01 }),
      regex(/^\d{4}-\d{2}-\d{2}$/, { path: 'date' }),
    ])
    const fewer = all([json(), numeric({ path: 'total', tolerance: 0.005 })])
    const distinct = new Set([spec(), spec(looser), spec(fewer)].map((s) => JSON.stringify(cellProtocol(s).verifier)))
    expect(distinct.size).toBe(3)
    expect(cellProtocol(spec(all(checks())))).toEqual(protocol)
  })

  it('records each check in every attempt, names the failed ones in the feedback, and annotates revisions by check', async () => {
    const { summary, trajectories } = await runCell(
      cellSpec(tasks, simulatedActor({ profile: 'reviser', seed: 5 }), {
        verifier: all(checks()),
        mode: { name: 'verifier', feedback: verifierFeedback() },
        budget: 4,
        repeats: 4,
      }),
    )
    expect(summary.errors.count).toBe(0)
    const attempts = trajectories.flatMap((t) => t.attempts)
    for (const a of attempts) {
      expect(a.verdict.checks?.map((c) => c.name)).toEqual(['json', 'numeric(total)', 'regex(date)'])
      expect(a.verdict.pass).toBe(a.verdict.checks!.every((c) => c.pass))
      if (a.feedback === null) continue
      const failed = a.verdict.checks!.filter((c) => !c.pass)
      expect(a.feedback.text.split('\n')[0]).toBe(`Failed checks (${failed.length} of 3):`)
      for (const c of failed) expect(a.feedback.text).toContain(`- ${c.name}: ${c.diagnostics.summary}`)
      expect(a.feedback.requests).toEqual(failed.map((c) => `check:${c.name}`))
    }
    // The prose answer is not read for its "14": it fails the JSON check and the field checks.
    const prose = attempts.find((a) => a.answer === 'the total is 14')
    expect(prose?.verdict.checks?.map((c) => c.pass)).toEqual([false, false, false])
    expect(summary.revisionAnnotation?.annotated).toBeGreaterThan(0)
    expect(summary.seqAt.at(-1)!).toBeGreaterThan(summary.seqAt[0]!)
  })
})
