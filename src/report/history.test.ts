import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { RunSummary } from '../core/schemas.js'
import { fakeRun } from '../../test/report-fixtures.js'
import {
  appendHistory,
  cellChanges,
  changeSinceLast,
  condenseChanges,
  gitInfo,
  HISTORY_SCHEMA,
  HistoryEntrySchema,
  historyEntries,
  readHistory,
  singleShotShift,
  type HistoryEntry,
} from './history.js'

const tmp = mkdtempSync(join(tmpdir(), 'seqk-history-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const { summary } = fakeRun({ modes: ['verifier', 'independent'] })
const cells = summary.benchmarks[0]!.cells

/** The same run with new ids and every headline rate replaced. */
function withRates(base: RunSummary, runId: string, rate: (cellId: string) => number): RunSummary {
  return {
    ...base,
    runId,
    benchmarks: base.benchmarks.map((b) => ({
      ...b,
      cells: b.cells.map((c) => {
        const v = rate(c.cellId)
        const curve = c.seqAt.map((x, i) => (i === c.budget - 1 ? v : x))
        return {
          ...c,
          runId,
          seqAt: curve,
          passAt: c.passAt ? c.passAt.map((x, i) => (i === c.budget - 1 ? v : x)) : null,
        }
      }),
    })),
  }
}

describe('historyEntries', () => {
  it('writes one valid line per cell with the protocol fingerprint and the curves', () => {
    const entries = historyEntries(summary, { commit: 'abc1234', branch: 'main' })
    expect(entries).toHaveLength(cells.length)
    for (const [i, e] of entries.entries()) {
      expect(HistoryEntrySchema.parse(e)).toEqual(e)
      expect(e).toMatchObject({
        schema: HISTORY_SCHEMA,
        runId: summary.runId,
        commit: 'abc1234',
        branch: 'main',
        cellId: cells[i]!.cellId,
        fingerprint: cells[i]!.fingerprint,
        seqAt: cells[i]!.seqAt,
      })
    }
    expect(historyEntries(summary, { commit: null })[0]).not.toHaveProperty('branch')
  })
})

describe('appendHistory / readHistory', () => {
  it('appends runs and reads them back; a missing file is an empty history', () => {
    const path = join(tmp, 'a', 'history.jsonl')
    expect(readHistory(path)).toEqual({ entries: [], truncatedTail: false })
    appendHistory(path, summary, { commit: 'c1' })
    appendHistory(
      path,
      withRates(summary, 'run-2', () => 0.5),
      { commit: 'c2' },
    )
    const { entries, truncatedTail } = readHistory(path)
    expect(truncatedTail).toBe(false)
    expect(entries.map((e) => e.commit)).toEqual([...cells.map(() => 'c1'), ...cells.map(() => 'c2')])
    expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(true)
  })

  it('tolerates a last line cut off mid-write, but not a broken line in the middle', () => {
    const path = join(tmp, 'cut.jsonl')
    appendHistory(path, summary, { commit: null })
    appendFileSync(path, '{"schema":"seqk.history/1","runId":"x"')
    expect(readHistory(path)).toMatchObject({ truncatedTail: true })
    expect(readHistory(path).entries).toHaveLength(cells.length)
    // A complete object with missing fields is not a cut-off write (a cut object is never valid JSON): an error.
    const path2 = join(tmp, 'cut2.jsonl')
    appendHistory(path2, summary, { commit: null })
    appendFileSync(path2, '{"schema":"seqk.history/1"}')
    expect(() => readHistory(path2)).toThrow(/cut2\.jsonl:\d+: not a seqk history entry: runId: /)

    const bad = join(tmp, 'bad.jsonl')
    writeFileSync(bad, `not json\n${JSON.stringify(historyEntries(summary, { commit: null })[0])}\n`)
    expect(() => readHistory(bad)).toThrow(/bad\.jsonl:1: not valid JSON/)
    writeFileSync(bad, `${JSON.stringify({ schema: 'seqk.history/1', runId: 1 })}\n`)
    expect(() => readHistory(bad)).toThrow(/bad\.jsonl:1: not a seqk history entry/)
  })
})

describe('a run appended again (a finished run resumed)', () => {
  it('adds no line it already has, and a changed cell replaces its earlier point instead of adding one', () => {
    const path = join(tmp, 'resumed.jsonl')
    const first = withRates(summary, 'run-r', () => 0.5)
    expect(appendHistory(path, first)).toHaveLength(cells.length)
    // Resumed with nothing left to run: the same numbers, a new createdAt.
    expect(appendHistory(path, { ...first, createdAt: '2026-12-02T00:00:00.000Z' })).toEqual([])
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(cells.length)
    // Resumed after errors were rerun: one cell moved; it is one point of that run, the new one.
    const moved = withRates(summary, 'run-r', (id) => (id === cells[0]!.cellId ? 0.75 : 0.5))
    expect(appendHistory(path, moved).map((e) => e.cellId)).toEqual([cells[0]!.cellId])
    const entries = readHistory(path).entries
    expect(entries).toHaveLength(cells.length)
    expect(entries.find((e) => e.cellId === cells[0]!.cellId)!.seqAt.at(-1)).toBe(0.75)
  })
})

describe('changeSinceLast', () => {
  const [verifierCell, independentCell] = cells
  const entries = (s: RunSummary, commit = 'c') => historyEntries(s, { commit })

  it('says how Seq@K (or Pass@K) moved since the last run with the same fingerprint', () => {
    const before = withRates(summary, 'run-1', (id) => (id === verifierCell!.cellId ? 12 / 13 : 0.5))
    const now = withRates(summary, 'run-2', (id) => (id === verifierCell!.cellId ? 1 : 0.5))
    const lines = changeSinceLast(entries(before), now)
    expect(lines).toContain(`${verifierCell!.cellId}: Seq@4 92.3 → 100.0 (+7.7)`)
    expect(lines).toContain(`${independentCell!.cellId}: Pass@4 50.0 → 50.0 (±0.0)`)
    const worse = changeSinceLast(
      entries(now),
      withRates(summary, 'run-3', () => 0.25),
    )
    expect(worse[0]).toBe(`${verifierCell!.cellId}: Seq@4 100.0 → 25.0 (-75.0)`)
  })

  it('compares with the latest earlier run of the same protocol and ignores the run itself', () => {
    const history = [
      ...entries(withRates(summary, 'run-1', () => 0.1)),
      ...entries(withRates(summary, 'run-2', () => 0.2)),
    ]
    const now = withRates(summary, 'run-3', () => 0.3)
    expect(changeSinceLast([...history, ...entries(now)], now)[0]).toBe(
      `${verifierCell!.cellId}: Seq@4 20.0 → 30.0 (+10.0)`,
    )
  })

  it('does not compare across a protocol change, and names a first run', () => {
    // Lines written before the instrument/subject split say only the protocol's fingerprint.
    const other: HistoryEntry[] = entries(summary).map(
      ({ instrumentFingerprint: _i, subjectFingerprint: _s, ...e }) => ({
        ...e,
        runId: 'old',
        fingerprint: 'ffff0000',
      }),
    )
    const lines = changeSinceLast(
      other,
      withRates(summary, 'new', () => 0.5),
    )
    expect(lines[0]).toBe(
      `${verifierCell!.cellId}: protocol changed since the last run (fingerprint ffff0000 → ${verifierCell!.fingerprint}); Seq@4 50.0 is not compared`,
    )
    expect(changeSinceLast([], summary)[0]).toMatch(/\(first recorded run\)$/)
  })

  it('says whether the subject or the instrument changed, where the last line records both', () => {
    const now = withRates(summary, 'new', () => 0.5)
    const subject: HistoryEntry[] = entries(summary).map((e) => ({
      ...e,
      runId: 'old',
      fingerprint: 'ffff0000',
      subjectFingerprint: 'aaaa0000',
    }))
    expect(changeSinceLast(subject, now)[0]).toMatch(
      new RegExp(
        `^${verifierCell!.cellId}: subject changed since the last run \\(subject aaaa0000 → [0-9a-f]{16}; the baseline gate and seqk compare compare it task by task\\); Seq@4 50\\.0 is not compared$`,
      ),
    )
    const instrument = subject.map((e) => ({ ...e, instrumentFingerprint: 'bbbb0000' }))
    expect(changeSinceLast(instrument, now)[0]).toMatch(
      /: instrument changed since the last run \(instrument bbbb0000 → /,
    )
  })

  it('prefixes the benchmark when a run has several', () => {
    const two: RunSummary = {
      ...summary,
      runId: 'two',
      benchmarks: [summary.benchmarks[0]!, { ...summary.benchmarks[0]!, name: 'other' }],
    }
    expect(changeSinceLast([], two)[0]).toMatch(/^toy benchmark › /)
  })
})

describe('the single try against the rate at K', () => {
  /** The run with each cell's first point (Pass@1, Seq@1) and last point (Pass@K, Seq@K) set. */
  function withEnds(base: RunSummary, runId: string, first: number, last: number): RunSummary {
    const ends = (curve: (number | null)[]) =>
      curve.map((x, i) => (i === 0 ? first : i === curve.length - 1 ? last : x))
    return {
      ...base,
      runId,
      benchmarks: base.benchmarks.map((b) => ({
        ...b,
        cells: b.cells.map((c) => ({ ...c, runId, seqAt: ends(c.seqAt), passAt: c.passAt ? ends(c.passAt) : null })),
      })),
    }
  }
  const entries = (s: RunSummary) => historyEntries(s, { commit: 'c' })

  it('flags a cell whose Pass@1 (Seq@1) fell while its rate at K rose, and the reverse', () => {
    const before = withEnds(summary, 'run-1', 0.6, 0.8)
    const better = cellChanges(entries(before), withEnds(summary, 'run-2', 0.5, 0.9))
    for (const change of better) {
      expect(change.singleShot).toBe('fell')
      expect(change.line).toMatch(/; (Pass|Seq)@1, the single try, fell 60\.0 → 50\.0 while (Pass|Seq)@4 rose$/)
    }
    const worse = cellChanges(entries(before), withEnds(summary, 'run-2', 0.7, 0.7))
    for (const change of worse) {
      expect(change.singleShot).toBe('rose')
      expect(change.line).toMatch(/the single try, rose 60\.0 → 70\.0 while (Pass|Seq)@4 fell$/)
    }
    // Both moving the same way, or either not moving, is no reversal.
    for (const [first, last] of [
      [0.7, 0.9],
      [0.6, 0.9],
      [0.5, 0.8],
    ] as const)
      for (const change of cellChanges(entries(before), withEnds(summary, 'run-2', first, last)))
        expect(change.singleShot).toBeUndefined()
  })

  it('decides on the printed tenths of a point, and says nothing where either end is unknown', () => {
    expect(singleShotShift([0.6, 0.8], [0.6 - 4e-4, 0.9])).toBeNull()
    expect(singleShotShift([0.6, 0.8], [0.6 - 6e-4, 0.9])).toEqual({ direction: 'fell', first: -0.1, last: 10 })
    expect(singleShotShift([null, 0.8], [0.5, 0.9])).toBeNull()
    expect(singleShotShift([0.6, 0.8], [0.5, null])).toBeNull()
    expect(singleShotShift([0.6], [0.5])).toBeNull()
  })
})

describe('cellChanges and condenseChanges', () => {
  const [verifierCell] = cells
  const entries = (s: RunSummary) => historyEntries(s, { commit: 'c' })

  it('tells changed from unchanged cells, and condenses the unchanged and first-recorded ones to counts', () => {
    const before = withRates(summary, 'run-1', (id) => (id === verifierCell!.cellId ? 0.5 : 0.25))
    const now = withRates(summary, 'run-2', (id) => (id === verifierCell!.cellId ? 0.75 : 0.25))
    const changes = cellChanges(entries(before), now)
    expect(changes.map((c) => c.kind)).toEqual(
      cells.map((c) => (c.cellId === verifierCell!.cellId ? 'changed' : 'unchanged')),
    )
    const unchanged = cells.length - 1
    expect(condenseChanges(changes)).toEqual([
      `${verifierCell!.cellId}: Seq@4 50.0 → 75.0 (+25.0)`,
      `${unchanged} ${unchanged === 1 ? 'cell' : 'cells'} unchanged`,
    ])
    // A rerun where nothing moved is one line; a first run is one line.
    expect(
      condenseChanges(
        cellChanges(
          entries(now),
          withRates(summary, 'run-3', (id) => (id === verifierCell!.cellId ? 0.75 : 0.25)),
        ),
      ),
    ).toEqual([`all ${cells.length} cells unchanged`])
    expect(condenseChanges(cellChanges([], summary))).toEqual([`${cells.length} cells recorded for the first time`])
    // One cell: "1 cell unchanged", never "all 1 cell unchanged".
    const one = cellChanges(
      entries(now),
      withRates(summary, 'run-3', (id) => (id === verifierCell!.cellId ? 0.75 : 0.25)),
    ).slice(0, 1)
    expect(condenseChanges(one)).toEqual(['1 cell unchanged'])
  })

  it("treats an entry as this run's only when its run id and time both match (CI reuses a run directory's name)", () => {
    const earlier = entries({ ...summary, createdAt: '2025-01-01T00:00:00.000Z' })
    expect(condenseChanges(cellChanges(earlier, summary))).toEqual([`all ${cells.length} cells unchanged`])
    // The run's own entries (already appended) are not compared with itself.
    expect(condenseChanges(cellChanges(entries(summary), summary))).toEqual([
      `${cells.length} cells recorded for the first time`,
    ])
  })

  it('keeps the line of every cell whose protocol changed', () => {
    const other: HistoryEntry[] = entries(summary).map(
      ({ instrumentFingerprint: _i, subjectFingerprint: _s, ...e }) => ({
        ...e,
        runId: 'old',
        fingerprint: 'ffff0000',
      }),
    )
    const condensed = condenseChanges(
      cellChanges(
        other,
        withRates(summary, 'new', () => 0.5),
      ),
    )
    expect(condensed).toHaveLength(cells.length)
    expect(condensed.every((line) => line.includes('protocol changed since the last run'))).toBe(true)
  })
})

describe('gitInfo', () => {
  it('returns a short commit inside this repository, and nulls outside git', () => {
    const inside = gitInfo(new URL('../..', import.meta.url).pathname)
    expect(inside.commit === null || /^[0-9a-f]{4,40}$/.test(inside.commit)).toBe(true)
    expect(gitInfo(tmp).commit).toBeNull()
  })
})
