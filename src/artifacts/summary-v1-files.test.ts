// Files written with summary schema 1 (test/fixtures/seqk-summary-1, see its SOURCE.md): the
// statistics they named as fields read into the `statistics` map with the values a recompute of
// the same trajectories gives, their shards still merge, and their baseline still gates.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compareToBaseline } from '../protocol/gate.js'
import { gateSummaries } from '../protocol/gate-index.js'
import { readBaselineFile } from './baseline-file.js'
import { readCells } from './cells-file.js'
import { mergeShards } from './merge.js'
import { recomputeRun } from './recompute.js'
import { readSummary } from './summary-file.js'
import { readTrajectories } from './trajectories-file.js'

const dir = new URL('../../test/fixtures/seqk-summary-1/', import.meta.url).pathname
const runDir = (name: string) => ({
  dir: join(dir, name),
  cells: readCells(join(dir, name, 'cells.jsonl')).cells,
  trajectories: readTrajectories(join(dir, name, 'trajectories.jsonl')).trajectories,
})
const raw = JSON.parse(readFileSync(join(dir, 'run/summary.json'), 'utf8'))

describe('files written with summary schema 1', () => {
  const old = readSummary(join(dir, 'run/summary.json'))
  const cells = old.benchmarks[0]!.cells

  it('summary.json reads as version 2: the named statistics are in the map, with their values', () => {
    expect(raw.schema).toBe('seqk.summary/1')
    expect(old.schema).toBe('seqk.summary/2')
    const [seq, ind] = [cells[0]!, cells[1]!]
    const [rawSeq, rawInd] = raw.benchmarks[0].cells
    expect(seq.statistics.gain).toEqual({ value: rawSeq.gain })
    expect(seq.statistics.meanAttempts).toEqual({ value: rawSeq.meanAttempts })
    expect(seq.statistics.unmodifiedRevisions?.value).toBe(rawSeq.unmodifiedRevisions.rate)
    expect(seq.statistics.unmodifiedRevisions?.n).toBe(rawSeq.unmodifiedRevisions.revisions)
    expect(seq.statistics.nextAttemptSuccess?.detail).toEqual(rawSeq.nextAttemptSuccess)
    expect(seq.statistics.egs?.value).toBe(rawSeq.egs)
    expect(ind.statistics.gain).toEqual({ value: rawInd.gain })
    // Statistics of sequential cells only have no entry on an independent cell.
    expect(ind.statistics.egs).toBeUndefined()
    expect(ind.statistics.unmodifiedRevisions).toBeUndefined()
    for (const cell of cells) expect(cell).not.toHaveProperty('gain')
  })

  it('a run recomputed from its cells.jsonl and trajectories.jsonl has the same statistics', () => {
    const { cells: declared, trajectories } = runDir('run')
    const now = recomputeRun({ runId: old.runId, createdAt: old.createdAt, cells: declared, trajectories })
    for (const [i, cell] of now.benchmarks[0]!.cells.entries()) {
      expect(cell.seqAt).toEqual(cells[i]!.seqAt)
      for (const [id, entry] of Object.entries(cells[i]!.statistics))
        expect(cell.statistics[id], id).toMatchObject(entry)
    }
  })

  it('the shards read, and merge into the whole run', () => {
    for (const shard of ['shard-1', 'shard-2'])
      expect(readSummary(join(dir, shard, 'summary.json')).schema).toBe('seqk.summary/2')
    const merged = mergeShards([runDir('shard-1'), runDir('shard-2')], 'merged')
    const summary = recomputeRun({ runId: 'merged', createdAt: old.createdAt, ...merged })
    expect(summary.benchmarks[0]!.cells.map((c) => [c.cellId, c.seqAt, c.statistics.gain])).toEqual(
      cells.map((c) => [c.cellId, c.seqAt, c.statistics.gain]),
    )
  })

  it('seqk.baseline.json reads and gates the run it came from; gateSummaries takes the old summary.json', () => {
    const baseline = readBaselineFile(join(dir, 'seqk.baseline.json'))!
    for (const cell of cells) {
      const stored = baseline.benchmarks['summary v1']!.cells[cell.cellId]!
      const result = compareToBaseline(stored, cell, { power: false })
      expect(result).toMatchObject({ pass: true, instrumentChanges: [], subjectChanges: [] })
    }
    const gated = gateSummaries(raw, raw)
    expect(gated.cells).toHaveLength(2)
  })
})
