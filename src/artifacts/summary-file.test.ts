import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { summariseCell } from '../protocol/cell-summary.js'
import { SUMMARY_SCHEMA, type Protocol, type RunSummary } from '../core/schemas.js'
import { readSummary, writeSummary } from './summary-file.js'
import { protocolFixture } from '../../test/protocol-fixture.js'

const dir = mkdtempSync(join(tmpdir(), 'seqk-summary-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const protocol: Protocol = protocolFixture({ benchmark: { name: 'bench', tasks: 1, contentHash: 'x' }, budget: 2 })

function runSummary(): RunSummary {
  const cell = summariseCell({
    runId: 'run',
    benchmark: 'bench',
    cellId: 'cell',
    actorId: 'actor',
    mode: 'binary',
    protocol,
    fingerprint: 'f',
    taskIds: ['t'],
    repeats: 1,
    trajectories: [],
    thresholds: { seqAt: { 2: 0.5 } },
    errors: 'left-out',
    durationMs: 1,
  })
  return {
    schema: SUMMARY_SCHEMA,
    runId: 'run',
    createdAt: '2026-01-01T00:00:00.000Z',
    benchmarks: [{ name: 'bench', file: 'evals/bench.eval.ts', cells: [cell] }],
  }
}

describe('writeSummary / readSummary', () => {
  it('round-trips a run summary (NaN-free, plain JSON) and leaves no temp file behind', () => {
    const path = join(dir, 'summary.json')
    const summary = runSummary()
    writeSummary(path, summary)
    expect(readSummary(path)).toEqual(summary)
    expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([])
    expect(readFileSync(path, 'utf8').endsWith('}\n')).toBe(true)
  })

  it('replaces an existing summary', () => {
    const path = join(dir, 'replace.json')
    writeSummary(path, runSummary())
    writeSummary(path, { ...runSummary(), runId: 'second' })
    expect(readSummary(path).runId).toBe('second')
  })

  it('names the field of a summary that does not validate', () => {
    const path = join(dir, 'bad.json')
    const bad = runSummary() as unknown as { benchmarks: { cells: { budget: unknown }[] }[] }
    bad.benchmarks[0]!.cells[0]!.budget = 0
    writeFileSync(path, JSON.stringify(bad))
    expect(() => readSummary(path)).toThrow(`${path}: not a seqk summary: benchmarks[0].cells[0].budget: `)
  })

  it('says when the file is not JSON or missing', () => {
    const path = join(dir, 'garbage.json')
    writeFileSync(path, '{ "schema": ')
    expect(() => readSummary(path)).toThrow(`${path}: not valid JSON`)
    const missing = join(dir, 'missing.json')
    expect(existsSync(missing)).toBe(false)
    expect(() => readSummary(missing)).toThrow(`${missing}: no such summary file`)
  })
})
