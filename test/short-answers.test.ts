// The short-answer verifiers and task files, end to end in one cell each: tasks loaded from a CSV
// and a JSON Lines file with loadTasks, answered by a seeded simulated actor, judged by contains,
// regex, json, numeric and oneOf, with verifier feedback between attempts. The loop checks every
// verdict against its contract, so a verifier that broke it would fail the cell here.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  actors,
  feedback,
  loadTasks,
  runCell,
  verifiers,
  type CellResult,
  type SeqEvalOptions,
  type Verifier,
} from 'vitest-seqk'
import { planCells, resolveOptions } from 'vitest-seqk/cells'

const dir = mkdtempSync(join(tmpdir(), 'seqk-short-answers-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const quizCsv = join(dir, 'quiz.csv')
writeFileSync(
  quizCsv,
  [
    'qid,question,answer,distractors',
    'q1,"Which is prime? A) 4 B) 6 C) 7 D) 9",C,"A|B"',
    'q2,"Which is even? A) 3 B) 8 C) 9 D) 11",B,"A|D"',
    'q3,"Largest? A) 10 B) 2 C) 7 D) 1",A,"C|E"',
  ].join('\n'),
)
const sumsJsonl = join(dir, 'sums.jsonl')
writeFileSync(
  sumsJsonl,
  ['{"id": "s1", "a": 2, "b": 3}', '{"id": "s2", "a": 10, "b": 0.5}', '{"id": "s3", "a": -4, "b": 1}'].join('\n'),
)

/** Runs one verifier-feedback cell of these tasks with a reviser, as a test of the user's would. */
async function cell(tasks: SeqEvalOptions['tasks'], verifier: Verifier): Promise<CellResult> {
  const options = resolveOptions('short answers', {
    tasks,
    actors: [actors.simulated({ profile: 'reviser', seed: 7 })],
    verifier,
    budget: 4,
    repeats: 3,
    modes: { verifier: { feedback: feedback.verifier() } },
  })
  const [plan] = planCells('short answers', options)
  return runCell({ ...plan!, runId: 'short-answers' })
}

/** No errors, every failed attempt's feedback carries its verdict's summary, and revising helps. */
function expectRevisionsFromFeedback({ summary, trajectories }: CellResult): void {
  expect(summary.errors.count).toBe(0)
  for (const attempt of trajectories.flatMap((t) => t.attempts)) {
    // A pass ends the trajectory, and so does the last attempt: neither gets feedback.
    if (attempt.verdict.pass) expect(attempt.feedback).toBeNull()
    else if (attempt.feedback) expect(attempt.feedback.text).toContain(attempt.verdict.diagnostics.summary)
  }
  expect(summary.seqAt.at(-1)!).toBeGreaterThan(summary.seqAt[0]!)
}

describe('short-answer verifiers over task files', () => {
  it('oneOf: a multiple-choice CSV, the choices named, the right one never', async () => {
    const tasks = loadTasks(quizCsv, {
      map: (row) => ({
        id: String(row.qid),
        prompt: String(row.question),
        expected: String(row.answer),
        simulation: { correct: [String(row.answer)], wrong: String(row.distractors).split('|') },
      }),
    })
    const result = await cell(tasks, verifiers.oneOf(['A', 'B', 'C', 'D']))
    expectRevisionsFromFeedback(result)
    const texts = result.trajectories.flatMap((t) => t.attempts.flatMap((a) => (a.feedback ? [a.feedback.text] : [])))
    expect(texts).toContain('the answer "E" is not one of the choices "A", "B", "C", "D"')
    expect(texts.filter((t) => t.includes('one of the choices, but not the right one')).length).toBeGreaterThan(0)
  })

  it('numeric: sums from JSON Lines, within a tolerance, the expected value hidden', async () => {
    const tasks = loadTasks(sumsJsonl, {
      map: (row) => {
        const sum = Number(row.a) + Number(row.b)
        return {
          id: String(row.id),
          prompt: `${String(row.a)} + ${String(row.b)}?`,
          expected: String(sum),
          simulation: { correct: [`It is ${sum}.`, `${sum + 0.004}`], wrong: [`${sum + 1}`, 'no idea'] },
        }
      },
    })
    const result = await cell(tasks, verifiers.numeric({ tolerance: 0.01 }))
    expectRevisionsFromFeedback(result)
    for (const t of result.trajectories) {
      const expected = tasks.find((task) => task.id === t.taskId)!.expected as string
      for (const a of t.attempts) if (a.feedback) expect(a.feedback.text).not.toContain(expected)
    }
  })

  it('contains, regex and json on the same tasks: each says what the revision must change', async () => {
    const tasks = [1, 2, 3].map((i) => ({
      id: `t${i}`,
      prompt: `Reply with JSON {"n": ${i}, "note": "Final answer: ${i}"}.`,
      simulation: { correct: [`{"n": ${i}, "note": "Final answer: ${i}"}`], wrong: [`{"n": "${i}"}`] },
    }))
    const json = await cell(
      tasks,
      verifiers.json({
        schema: {
          type: 'object',
          required: ['n', 'note'],
          properties: { n: { type: 'integer' }, note: { type: 'string' } },
        },
      }),
    )
    expectRevisionsFromFeedback(json)
    const jsonTexts = json.trajectories.flatMap((t) => t.attempts.flatMap((a) => (a.feedback ? [a.feedback.text] : [])))
    expect(new Set(jsonTexts)).toEqual(
      new Set([
        "the JSON does not match the schema: at $: must have required property 'note'; at $.n: must be integer",
      ]),
    )
    expectRevisionsFromFeedback(await cell(tasks, verifiers.contains('Final answer:')))
    expectRevisionsFromFeedback(await cell(tasks, verifiers.regex(/^\{"n": \d+, "note": "Final answer: \d+"\}$/)))
    expect(json.summary.protocol.verifier).toMatchObject({
      name: 'json',
      settings: { schema: 'json-schema', fenced: true },
    })
  })
})
