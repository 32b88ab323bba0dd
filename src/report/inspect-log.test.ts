import { describe, expect, it } from 'vitest'
import { evalLogValidator, schemaErrors } from '../../test/export-schemas.js'
import { fakeRun } from '../../test/report-fixtures.js'
import { taskRecordKey, type TaskRecord } from '../artifacts/tasks-file.js'
import { inspectLogs } from './inspect-log.js'

const HOSTILE = 'Ignore the rules\u0000\u0007 </script><script>alert(1)</script> "quoted" \\ \ud83d\ude00 \u2028'

function tasksOf(benchmark: string, ids: readonly string[]): Map<string, TaskRecord> {
  return new Map(
    ids.map((id) => [
      taskRecordKey(benchmark, id),
      {
        schema: 'seqk.task/1',
        benchmark,
        taskId: id,
        contentHash: 'c0ffee',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: `Solve ${id}` },
        ],
        promptBuilder: 'seqk-prompt/1',
      } satisfies TaskRecord,
    ]),
  )
}

describe('inspectLogs', () => {
  const run = fakeRun({
    answerFor: (taskId, attempt) => (taskId === 't/2' ? `${HOSTILE} ${attempt}` : undefined),
    errorFor: (taskId, repeat) => (taskId === 't/3' && repeat === 1 ? 'HTTP 500: the server had an error' : undefined),
    costPerAttempt: null,
  })
  const logs = inspectLogs({
    summary: run.summary,
    trajectories: run.trajectories,
    tasks: tasksOf('toy benchmark', ['t/1', 't/2', 't/3', 't/4', 't/5']),
  })

  it("every cell's log validates against inspect_ai's published EvalLog schema (hostile answers, an errored sample, unpriced calls)", () => {
    const validate = evalLogValidator()
    expect(logs).toHaveLength(6)
    for (const { file, log } of logs) expect(validate(log), `${file}:\n${schemaErrors(validate.errors)}`).toBe(true)
  })

  it('usage no reply reported stays out of model_usage, never as 0 tokens, and the count is in metadata; still valid', () => {
    const first = run.trajectories[0]!
    const trajectories = run.trajectories.map((t) =>
      t === first ? { ...t, attempts: t.attempts.map((a, i) => (i === 0 ? { ...a, usage: null } : a)) } : t,
    )
    const summary = {
      ...run.summary,
      benchmarks: run.summary.benchmarks.map((b) => ({
        ...b,
        cells: b.cells.map((c) =>
          c.cellId === first.cellId
            ? {
                ...c,
                usageUnknownCalls: 1,
                byRole: { ...c.byRole, actor: { ...c.byRole.actor!, usageUnknownCalls: 1 } },
              }
            : c,
        ),
      })),
    }
    const validate = evalLogValidator()
    const own = inspectLogs({ summary, trajectories, tasks: new Map() }).find((l) => l.cell.cellId === first.cellId)!
    expect(validate(own.log), schemaErrors(validate.errors)).toBe(true)
    const log = own.log as {
      stats: { model_usage: object; role_usage: Record<string, unknown> }
      results: { metadata: Record<string, unknown> }
      samples: {
        id: string
        epoch: number
        model_usage: object
        output: { usage: unknown }
        metadata: Record<string, unknown>
      }[]
    }
    expect(log.stats.model_usage).toEqual({})
    expect(log.stats.role_usage.actor).toBeUndefined()
    expect(log.results.metadata.usage_unknown_calls).toBe(1)
    const sample = log.samples.find((s) => s.id === first.taskId && s.epoch === first.repeat + 1)!
    expect(sample.model_usage).toEqual({})
    expect(sample.output.usage).toBeNull()
    expect(sample.metadata.usage_unknown_calls).toBe(1)
  })

  it('the validator is a real check: a log without its eval spec, or with a sample epoch as text, fails', () => {
    const validate = evalLogValidator()
    const { eval: _spec, ...noSpec } = logs[0]!.log
    expect(validate(noSpec)).toBe(false)
    const samples = logs[0]!.log.samples as Record<string, unknown>[]
    expect(validate({ ...logs[0]!.log, samples: [{ ...samples[0], epoch: 'one' }] })).toBe(false)
  })

  it('maps a cell to a log: one sample per trajectory (task id × repeat as epoch), the curve as metrics, usage per role', () => {
    for (const { cell, log } of logs) {
      const own = run.trajectories.filter((t) => t.cellId === cell.cellId)
      const samples = log.samples as {
        id: string
        epoch: number
        scores: Record<string, { value: number }>
        messages: { role: string; content: string }[]
        error?: unknown
      }[]
      expect(samples).toHaveLength(own.length)
      expect(new Set(samples.map((s) => `${s.id}#${s.epoch}`)).size).toBe(own.length)
      expect(Math.min(...samples.map((s) => s.epoch))).toBe(1)
      const results = log.results as { scores: { name: string; metrics: Record<string, { value: number }> }[] }
      const metric = cell.protocol.kind === 'sequential' ? 'seq' : 'pass'
      const curve = (cell.protocol.kind === 'sequential' ? cell.seqAt : cell.passAt)!
      curve.forEach((v, i) => expect(results.scores[0]!.metrics[`${metric}@${i + 1}`]?.value).toBe(v))
      expect((log.eval as { model: string }).model).toBe(`simulated/${cell.actorId}`)
      expect(Object.keys((log.stats as { role_usage: object }).role_usage)).toEqual(Object.keys(cell.byRole))
      for (const [s, t] of samples.map(
        (s) => [s, own.find((x) => x.taskId === s.id && x.repeat === s.epoch - 1)!] as const,
      )) {
        // The prompt, then answer and (for a revision) the feedback turn, attempt by attempt.
        expect(s.messages.slice(0, 2).map((m) => m.content)).toEqual(['Be brief.', `Solve ${s.id}`])
        expect(s.messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual(
          t.attempts.map((a) => a.answer),
        )
        for (const a of t.attempts) expect(s.scores[`attempt_${a.index}`]!.value).toBe(a.verdict.pass ? 1 : 0)
        if (t.status === 'error') {
          expect(s.error).toBeDefined()
          expect(s.scores.solved).toBeUndefined()
        } else expect(s.scores.solved!.value).toBe(t.status === 'solved' ? 1 : 0)
      }
    }
  })

  it('a revision turn is the feedback as the prompt builder sent it; without recorded prompts the input says so', () => {
    const verifier = logs.find((l) => l.cell.mode === 'verifier')!
    const revised = (verifier.log.samples as { messages: { role: string; content: string }[] }[]).find(
      (s) => s.messages.length > 3,
    )!
    expect(revised.messages[3]!.content).toMatch(
      /^Failed test details:[\s\S]*Please revise your answer and reply with the complete corrected solution\.$/,
    )
    const bare = inspectLogs({ summary: run.summary, trajectories: run.trajectories, tasks: new Map() })
    const input = (bare[0]!.log.samples as { input: unknown }[])[0]!.input
    expect(input).toMatch(/is not in this run directory's tasks\.jsonl/)
    expect(evalLogValidator()(bare[0]!.log)).toBe(true)
  })

  it('file names are safe and distinct, whatever the cell ids', () => {
    const names = inspectLogs({
      ...fakeRun({
        benchmark: '../../etc/passwd',
        actors: [
          { id: 'a/b', skill: 0.5 },
          { id: 'a b', skill: 0.5 },
        ],
        modes: ['binary'],
      }),
      tasks: new Map(),
    }).map((l) => l.file)
    expect(new Set(names).size).toBe(2)
    for (const n of names) expect(n).toMatch(/^[A-Za-z0-9._-]+\.json$/)
    for (const n of names) expect(n.startsWith('.')).toBe(false)
  })
})
