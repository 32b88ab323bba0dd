// seqEval's `stability` option: a `seqk stability --json` report of the eval's own verifier makes
// the cells of its flipping tasks say so; a report of another verifier or setting is refused.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { feedback } from '../feedback/index.js'
import { actors } from '../models/index.js'
import { runCell } from '../protocol/cell.js'
import { measureStability } from '../protocol/stability.js'
import { cellSpec } from '../protocol/test-helpers.js'
import type { Verifier } from '../verifiers/verifier.js'
import { resolveOptions, SeqEvalOptionsError } from './options.js'
import { planCells } from './seq-eval.js'

const dir = mkdtempSync(join(tmpdir(), 'seqk-stability-option-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Passes `OK`, except on task `b`, where it alternates: a flaky verifier. */
function flakyOn(b: string, settings: Verifier['settings'] = { timeoutMs: 3000 }): Verifier {
  let calls = 0
  return {
    name: 'flaky-ok',
    version: '1',
    settings,
    verify(task, answer) {
      const pass = answer.includes('OK') && (task.id !== b || calls++ % 2 === 0)
      return { pass, diagnostics: { outcome: pass ? 'passed' : 'failed', summary: '' } }
    },
  }
}
const tasks = [
  { id: 'a', prompt: 'say OK' },
  { id: 'b', prompt: 'say OK' },
]

async function reportFile(verifier: Verifier): Promise<string> {
  const report = await measureStability(
    tasks.map((task) => ({ task, answer: 'OK' })),
    verifier,
    { repeats: 2, concurrency: 1 },
  )
  const file = join(dir, `report-${Math.random().toString(36).slice(2)}.json`)
  writeFileSync(file, JSON.stringify(report))
  return file
}

const options = (verifier: Verifier, stability: string) => ({
  tasks,
  actors: [actors.simulated({ profile: 'reviser' })],
  verifier,
  budget: 2,
  modes: { verifier: { feedback: feedback.verifier() } },
  stability,
})

describe('seqEval stability option', () => {
  it("a report of the eval's verifier gives its flipping tasks to every cell, and the summary names them", async () => {
    const verifier = flakyOn('b')
    const file = await reportFile(verifier)
    const resolved = resolveOptions('bench', options(verifier, file))
    expect(resolved.knownUnstable).toEqual(['b'])
    const [plan] = planCells('bench', resolved)
    expect(plan!.knownUnstable).toEqual(['b'])
    const { summary } = await runCell(
      cellSpec(tasks, actors.simulated({ profile: 'reviser' }), { verifier, knownUnstable: plan!.knownUnstable }),
    )
    expect(summary.verifierUnstable?.reported).toEqual(['b'])
  })

  it('refuses a report of other settings, a missing file and a file that is no report, naming the fix', async () => {
    const file = await reportFile(flakyOn('b', { timeoutMs: 1000 }))
    const problems = (stability: string) => {
      try {
        resolveOptions('bench', options(flakyOn('b'), stability))
        return ''
      } catch (error) {
        expect(error).toBeInstanceOf(SeqEvalOptionsError)
        return (error as Error).message
      }
    }
    expect(problems(file)).toMatch(/stability: .*measured flaky-ok 1 \{"timeoutMs":1000\}.*run seqk stability again/)
    expect(problems(join(dir, 'missing.json'))).toMatch(/stability: cannot read .*seqk stability/)
    const other = join(dir, 'other.json')
    writeFileSync(other, JSON.stringify({ schema: 'seqk.cell/1' }))
    expect(problems(other)).toMatch(/stability: .*schema: expected a `seqk stability --json` report/)
  })
})
