import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { TRAJECTORY_SCHEMA, type Trajectory } from './schemas.js'
import { appendTrajectory, readTrajectories } from './trajectories-file.js'

const dir = mkdtempSync(join(tmpdir(), 'seqk-trajectories-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let files = 0
const freshPath = () => join(dir, `t${++files}.jsonl`)

function trajectory(taskId: string, repeat = 0): Trajectory {
  return {
    schema: TRAJECTORY_SCHEMA,
    runId: '20260101-000000-abcd',
    benchmark: 'bench',
    cellId: 'actor × binary',
    actorId: 'actor',
    mode: 'binary',
    fingerprint: '0123456789abcdef',
    protocol: {
      schema: 'seqk.protocol/1',
      kind: 'sequential',
      benchmark: { name: 'bench', tasks: 3, contentHash: 'fedcba9876543210' },
      verifier: { name: 'v', version: '1', settings: { timeoutMs: 3000 } },
      feedback: { kind: 'binary', name: 'binary', version: '1', settings: { text: 'no' } },
      history: { name: 'full', settings: {} },
      promptBuilder: 'seqk-prompt/1',
      actor: { provider: 'test', model: 'm', params: { temperature: 0.5, seed: null } },
      budget: 3,
      budgetDisclosed: false,
      errorsCountedAsFailures: false,
    },
    taskId,
    repeat,
    status: 'solved',
    firstSuccess: 2,
    error: null,
    attempts: [1, 2].map((index) => ({
      index,
      answer: index === 1 ? 'print("héllo ✓")\n' : 'OK',
      verdict: { pass: index === 2, diagnostics: { outcome: index === 2 ? 'passed' : 'failed', summary: 's', tests: [{ index: 0, source: 'assert f() == 1', pass: index === 2, call: 'f()', expected: '1', actual: '2' }] } },
      feedback: index === 1 ? { kind: 'binary', text: 'no' } : null,
      finishReason: 'stop',
      usage: { inputTokens: 3, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0 },
      latencyMs: 12.5,
      costUsd: null,
      costUsdWithoutCache: null,
      replayed: false,
      helperCalls: [],
      unmodified: index === 1 ? null : false,
    })),
    usage: { inputTokens: 6, outputTokens: 8, cacheReadTokens: 0, cacheWriteTokens: 0 },
    costUsd: null,
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 30,
  }
}

describe('appendTrajectory / readTrajectories', () => {
  it('round-trips trajectories, one JSON line each', () => {
    const path = freshPath()
    const written = [trajectory('a'), trajectory('b', 1), trajectory('c', 2)]
    for (const t of written) appendTrajectory(path, t)
    expect(readFileSync(path, 'utf8').split('\n')).toHaveLength(4)
    expect(readTrajectories(path)).toEqual({ trajectories: written, truncatedTail: false })
  })

  it('reads an empty file as no trajectories', () => {
    const path = freshPath()
    writeFileSync(path, '')
    expect(readTrajectories(path)).toEqual({ trajectories: [], truncatedTail: false })
  })

  it('tolerates a final line cut off by a crash mid-write, and reports it', () => {
    const path = freshPath()
    appendTrajectory(path, trajectory('a'))
    appendTrajectory(path, trajectory('b'))
    const line = JSON.stringify(trajectory('c'))
    appendFileSync(path, line.slice(0, Math.floor(line.length / 2)))
    const read = readTrajectories(path)
    expect(read.truncatedTail).toBe(true)
    expect(read.trajectories.map((t) => t.taskId)).toEqual(['a', 'b'])
  })

  it('accepts a complete last line without a trailing newline', () => {
    const path = freshPath()
    writeFileSync(path, `${JSON.stringify(trajectory('a'))}\n${JSON.stringify(trajectory('b'))}`)
    expect(readTrajectories(path)).toEqual({ trajectories: [trajectory('a'), trajectory('b')], truncatedTail: false })
  })

  it('throws on a malformed line in the middle, naming file and line', () => {
    const path = freshPath()
    appendTrajectory(path, trajectory('a'))
    appendFileSync(path, '{"schema": "seqk.traj\n')
    appendTrajectory(path, trajectory('c'))
    expect(() => readTrajectories(path)).toThrow(`${path}:2: not valid JSON`)
  })

  it('throws on a wrong field, naming the line and the field path', () => {
    const path = freshPath()
    appendTrajectory(path, trajectory('a'))
    const bad = trajectory('b') as unknown as { attempts: { verdict: { pass: unknown } }[] }
    bad.attempts[1]!.verdict.pass = 'yes'
    appendFileSync(path, `${JSON.stringify(bad)}\n`)
    expect(() => readTrajectories(path)).toThrow(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: not a seqk trajectory: attempts\\[1\\]\\.verdict\\.pass: `))
  })

  it('does not excuse a wrong field on the last line as a truncated tail', () => {
    const path = freshPath()
    appendTrajectory(path, trajectory('a'))
    appendFileSync(path, JSON.stringify({ ...trajectory('b'), status: 'done' }))
    expect(() => readTrajectories(path)).toThrow(/:2: not a seqk trajectory: status: /)
  })

  it('rejects another schema version', () => {
    const path = freshPath()
    appendFileSync(path, `${JSON.stringify({ ...trajectory('a'), schema: 'seqk.trajectory/2' })}\n`)
    expect(() => readTrajectories(path)).toThrow(/:1: not a seqk trajectory: schema: /)
  })

  it('says where trajectories are written when the file is missing', () => {
    const path = join(dir, 'nope.jsonl')
    expect(() => readTrajectories(path)).toThrow(`${path}: no such trajectories file`)
  })
})
