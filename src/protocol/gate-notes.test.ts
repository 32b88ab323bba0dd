import { describe, expect, it } from 'vitest'
import type { GateJson } from '../core/schemas.js'
import { couldNotSee, gateNoteLines, subjectChangeText } from './gate-notes.js'
import { cellVerdict } from './verdict.js'

const power = (detectableDrop: number | null, tasks = 8, repeats = 2): NonNullable<GateJson['power']> => ({
  tasks,
  repeats,
  detectableDrop,
  at: [],
  sentence: `with ${tasks} tasks × ${repeats} repeats this gate catches …`,
})

const gate = (overrides: Partial<GateJson> = {}): GateJson => ({
  status: 'pass',
  file: 'seqk.baseline.json',
  messages: ['no regression against seqk.baseline.json'],
  comparisons: [],
  gate: { protocol: 'seqk.gate/2', interval: 'agresti-min-t/1', margin: 0, maxDrop: 0.1, level: 0.95, ks: [5] },
  power: power(0.63),
  regressed: [],
  improved: [],
  added: [],
  removed: [],
  changed: [],
  ...overrides,
})

describe('couldNotSee', () => {
  it('says what a passing gate could not see when it cannot catch the drop that matters', () => {
    expect(couldNotSee(gate())).toBe(
      'no drop it could see; it catches drops of ≥ 63 points 80% of the time (8 tasks × 2 repeats)',
    )
    expect(couldNotSee(gate({ power: power(null, 3, 1) }))).toBe(
      'no drop it could see; at 3 tasks × 1 repeat it cannot catch even a drop to zero 80% of the time',
    )
  })

  it('says nothing for a gate that sees the drop that matters, that failed, or has no power figure', () => {
    expect(couldNotSee(gate({ power: power(0.08) }))).toBeNull()
    expect(couldNotSee(gate({ power: power(0.1) }))).toBeNull()
    // The drop that matters is the gate's own maxDrop.
    expect(couldNotSee(gate({ power: power(0.15), gate: { ...gate().gate!, maxDrop: 0.2 } }))).toBeNull()
    expect(couldNotSee(gate({ status: 'fail' }))).toBeNull()
    expect(couldNotSee(gate({ power: null }))).toBeNull()
  })
})

describe('the gate check every output prints', () => {
  const cell = (g: GateJson) => ({ thresholds: [], gate: g })

  it('an underpowered pass is a caution whose message says what it could not see, never "no regression"', () => {
    const v = cellVerdict(cell(gate()))
    expect(v.status).toBe('pass')
    expect(v.passed[0]!.caution).toBe(true)
    expect(v.passed[0]!.message).toBe(`baseline: ${couldNotSee(gate())}`)
  })

  it('a change of subject is a note of the check, pass or fail, before → after', () => {
    const changed = gate({ subjectChanges: ['actor.model: "a" → "b"'], power: power(0.05) })
    expect(subjectChangeText(changed)).toBe('compared across a change of subject: actor.model: "a" → "b"')
    expect(cellVerdict(cell(changed)).passed[0]!.notes).toEqual([subjectChangeText(changed)])
    const failed = cellVerdict(cell({ ...changed, status: 'fail', messages: ['Seq@5 … a real drop'] }))
    expect(failed.failed[0]!.notes).toEqual([subjectChangeText(changed)])
    expect(
      subjectChangeText(gate({ baselineCell: 'old · verifier', subjectChanges: ['actor.model: "a" → "b"'] })),
    ).toBe(`compared across a change of subject (with the baseline's cell "old · verifier"): actor.model: "a" → "b"`)
  })

  it('every note line names its cell', () => {
    const lines = gateNoteLines('m · verifier', gate({ subjectChanges: ['instructions: "x" → "y"'] }))
    expect(lines).toHaveLength(2)
    for (const line of lines) expect(line.startsWith('m · verifier: baseline: ')).toBe(true)
    expect(gateNoteLines('m · verifier', null)).toEqual([])
  })
})
