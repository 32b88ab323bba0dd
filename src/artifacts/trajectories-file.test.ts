import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { TRAJECTORY_SCHEMA, type Trajectory } from '../core/schemas.js'
import { appendTrajectory, cutTornTail, readTrajectories } from './trajectories-file.js'
import { protocolFixture } from '../../test/protocol-fixture.js'

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
    protocol: protocolFixture({
      benchmark: { name: 'bench', tasks: 3, contentHash: 'fedcba9876543210' },
      verifier: { name: 'v', version: '1', settings: { timeoutMs: 3000 } },
      feedback: { kind: 'binary', name: 'binary', version: '1', settings: { text: 'no' } },
      actor: { provider: 'test', model: 'm', params: { temperature: 0.5, seed: null } },
    }),
    taskId,
    repeat,
    status: 'solved',
    firstSuccess: 2,
    error: null,
    attempts: [1, 2].map((index) => ({
      index,
      answer: index === 1 ? 'print("héllo ✓")\n' : 'OK',
      verdict: {
        pass: index === 2,
        diagnostics: {
          outcome: index === 2 ? 'passed' : 'failed',
          summary: 's',
          tests: [{ index: 0, source: 'assert f() == 1', pass: index === 2, call: 'f()', expected: '1', actual: '2' }],
        },
      },
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
    expect(readTrajectories(path)).toEqual({ trajectories: written, truncatedTail: false, superseded: 0 })
  })

  it('reads an empty file as no trajectories', () => {
    const path = freshPath()
    writeFileSync(path, '')
    expect(readTrajectories(path)).toEqual({ trajectories: [], truncatedTail: false, superseded: 0 })
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
    expect(readTrajectories(path)).toEqual({
      trajectories: [trajectory('a'), trajectory('b')],
      truncatedTail: false,
      superseded: 0,
    })
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
    expect(() => readTrajectories(path)).toThrow(
      new RegExp(
        `^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: not a seqk trajectory: attempts\\[1\\]\\.verdict\\.pass: `,
      ),
    )
  })

  it('does not excuse a wrong field on the last line as a truncated tail', () => {
    const path = freshPath()
    appendTrajectory(path, trajectory('a'))
    appendFileSync(path, JSON.stringify({ ...trajectory('b'), status: 'done' }))
    expect(() => readTrajectories(path)).toThrow(/:2: not a seqk trajectory: status: /)
  })

  it('rejects another schema version', () => {
    const path = freshPath()
    appendFileSync(path, `${JSON.stringify({ ...trajectory('a'), schema: 'seqk.trajectory/9' })}\n`)
    expect(() => readTrajectories(path)).toThrow(/:1: not a seqk trajectory: schema: /)
  })

  it('reads version 1 files (usage always numbers) beside version 2 ones (unknown usage null) and version 3 ones (episodes)', () => {
    const path = freshPath()
    const unknown = {
      ...trajectory('b'),
      schema: 'seqk.trajectory/2',
      usage: null,
      usageUnknownCalls: 1,
      attempts: trajectory('b').attempts.map((a) => ({ ...a, usage: null })),
    }
    const episode = {
      turns: [
        {
          index: 1,
          text: 'done',
          toolCalls: [{ id: 'c1', name: 'read', arguments: '{}', result: 'x', error: null, durationMs: 1 }],
          usage: null,
          costUsd: null,
          latencyMs: 2,
          replayed: false,
        },
      ],
      endedBy: 'answer',
    }
    const agent = { ...trajectory('c'), attempts: trajectory('c').attempts.map((a) => ({ ...a, episode })) }
    appendFileSync(
      path,
      `${JSON.stringify({ ...trajectory('a'), schema: 'seqk.trajectory/1' })}\n${JSON.stringify(unknown)}\n${JSON.stringify(agent)}\n`,
    )
    const [v1, v2, v3] = readTrajectories(path).trajectories
    expect([v1!.schema, v1!.usage]).toEqual(['seqk.trajectory/1', trajectory('a').usage])
    expect([v2!.schema, v2!.usage, v2!.usageUnknownCalls, v2!.attempts[0]!.usage]).toEqual([
      'seqk.trajectory/2',
      null,
      1,
      null,
    ])
    expect([v3!.schema, v3!.attempts[0]!.episode]).toEqual(['seqk.trajectory/3', episode])
  })

  it('says where trajectories are written when the file is missing', () => {
    const path = join(dir, 'nope.jsonl')
    expect(() => readTrajectories(path)).toThrow(`${path}: no such trajectories file`)
  })
})

describe("a resumed run's file", () => {
  it('counts a trajectory once: a later line for the same run, cell, task and repeat supersedes the earlier', () => {
    const path = freshPath()
    const errored: Trajectory = {
      ...trajectory('b'),
      status: 'error',
      firstSuccess: null,
      error: { stage: 'actor', attempt: 1, message: 'boom' },
    }
    for (const t of [trajectory('a'), errored, trajectory('c'), trajectory('b'), trajectory('b', 1)])
      appendTrajectory(path, t)
    const read = readTrajectories(path)
    expect(read.superseded).toBe(1)
    expect(read.trajectories.map((t) => `${t.taskId}/${t.repeat}:${t.status}`)).toEqual([
      'a/0:solved',
      'c/0:solved',
      'b/0:solved',
      'b/1:solved',
    ])
    // Another cell's or run's line with the same task is a trajectory of its own.
    appendTrajectory(path, { ...trajectory('a'), cellId: 'other' })
    appendTrajectory(path, { ...trajectory('a'), runId: 'another-run' })
    expect(readTrajectories(path)).toMatchObject({ superseded: 1 })
    expect(readTrajectories(path).trajectories).toHaveLength(6)
  })

  it('reads only the first bytes when asked (what the file held before this run appended)', () => {
    const path = freshPath()
    appendTrajectory(path, trajectory('a'))
    const bytes = readFileSync(path).length
    appendTrajectory(path, trajectory('b'))
    expect(readTrajectories(path, { bytes }).trajectories.map((t) => t.taskId)).toEqual(['a'])
  })

  it('cutTornTail cuts what follows the last newline, and nothing else', () => {
    const path = freshPath()
    appendTrajectory(path, trajectory('a'))
    const whole = readFileSync(path, 'utf8')
    expect(cutTornTail(path)).toBe(0)
    const line = JSON.stringify(trajectory('b'))
    appendFileSync(path, line.slice(0, 40))
    expect(cutTornTail(path)).toBe(40)
    expect(readFileSync(path, 'utf8')).toBe(whole)
    // The next append then starts a line of its own: nothing glued onto a torn record.
    appendTrajectory(path, trajectory('c'))
    expect(readTrajectories(path)).toMatchObject({ truncatedTail: false, superseded: 0 })
  })

  it('cutTornTail finds a newline further back than one read (a long torn record), and empties a file with none', () => {
    const path = freshPath()
    appendTrajectory(path, trajectory('a'))
    const whole = readFileSync(path, 'utf8')
    appendFileSync(path, 'x'.repeat(200_000))
    expect(cutTornTail(path)).toBe(200_000)
    expect(readFileSync(path, 'utf8')).toBe(whole)
    const none = freshPath()
    writeFileSync(none, '{"schema":')
    expect(cutTornTail(none)).toBe(10)
    expect(readFileSync(none, 'utf8')).toBe('')
  })
})
