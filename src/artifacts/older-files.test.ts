// Files written before the instrument/subject split (test/fixtures/seqk-0.1, see its SOURCE.md):
// they still read, their instrument and subject are derived from their protocol, a run recomputed
// from them now records both, the shards of the same run still merge, and the new gate compares
// a new run with the old baseline as the same instrument and the same subject.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DisclosureCardSchema } from '../core/disclosure.js'
import { cellInstrument, cellSubject, instrumentOf, subjectOf } from '../core/instrument.js'
import { compareToBaseline } from '../protocol/gate.js'
import { readHistory } from '../report/history.js'
import { readBaselineFile } from './baseline-file.js'
import { readCells } from './cells-file.js'
import { mergeShards } from './merge.js'
import { recomputeRun } from './recompute.js'
import { readSummary } from './summary-file.js'
import { readTrajectories } from './trajectories-file.js'

const dir = new URL('../../test/fixtures/seqk-0.1/', import.meta.url).pathname
const runDir = (name: string) => ({
  dir: join(dir, name),
  cells: readCells(join(dir, name, 'cells.jsonl')).cells,
  trajectories: readTrajectories(join(dir, name, 'trajectories.jsonl')).trajectories,
})

describe('files written before the instrument/subject split', () => {
  const old = readSummary(join(dir, 'run/summary.json'))
  const cells = old.benchmarks[0]!.cells

  it('summary.json reads; each cell has no split stored, and derives it from its protocol and repeats', () => {
    expect(cells).toHaveLength(2)
    for (const cell of cells) {
      expect(cell.instrument).toBeUndefined()
      expect(cellInstrument(cell)).toEqual(instrumentOf(cell.protocol, 2))
      expect(cellSubject(cell)).toEqual(subjectOf(cell.protocol))
      expect(cellSubject(cell).actor.model).toBe('reviser')
      expect(cellInstrument(cell).errors).toBe('censored')
    }
  })

  it('a run recomputed from its cells.jsonl and trajectories.jsonl records the split, with the same numbers', () => {
    const { cells: declared, trajectories } = runDir('run')
    const now = recomputeRun({ runId: old.runId, createdAt: old.createdAt, cells: declared, trajectories })
    for (const [i, cell] of now.benchmarks[0]!.cells.entries()) {
      expect(cell.instrument).toEqual(cellInstrument(cells[i]!))
      expect(cell.subject).toEqual(cellSubject(cells[i]!))
      expect(cell.fingerprint).toBe(cells[i]!.fingerprint)
      expect(cell.seqAt).toEqual(cells[i]!.seqAt)
    }
  })

  it('the two shards still merge into the whole run', () => {
    const merged = mergeShards([runDir('shard-1'), runDir('shard-2')], 'merged')
    const summary = recomputeRun({ runId: 'merged', createdAt: old.createdAt, ...merged })
    expect(summary.benchmarks[0]!.cells.map((c) => [c.cellId, c.seqAt, c.instrument?.fingerprint])).toEqual(
      cells.map((c) => [c.cellId, c.seqAt, cellInstrument(c).fingerprint]),
    )
  })

  it('seqk.baseline.json reads, and gates the run it came from as the same instrument and subject', () => {
    const baseline = readBaselineFile(join(dir, 'seqk.baseline.json'))!
    for (const cell of cells) {
      const stored = baseline.benchmarks['old schema']!.cells[cell.cellId]!
      expect(stored.instrumentFingerprint).toBeUndefined()
      const result = compareToBaseline(stored, cell, { power: false })
      expect(result).toMatchObject({ pass: true, instrumentChanges: [], subjectChanges: [] })
    }
  })

  it('the history and the disclosure card read', () => {
    const history = readHistory(join(dir, 'history.jsonl'))
    expect(history.entries.map((e) => e.cellId)).toEqual(cells.map((c) => c.cellId))
    expect(history.entries[0]!.instrumentFingerprint).toBeUndefined()
    const card = DisclosureCardSchema.parse(JSON.parse(readFileSync(join(dir, 'run/disclosure.json'), 'utf8')))
    expect(card.inference[0]!.cells[0]!.subjectFingerprint).toBeUndefined()
  })
})
