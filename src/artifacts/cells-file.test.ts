import { describe, expect, it } from 'vitest'
import { RATE_METRICS } from '../core/kinds.js'
import { CellStartRecordSchema } from './cells-file.js'

describe('CellStartRecordSchema', () => {
  it('keeps a threshold on every rate a cell can declare, so a recomputed summary checks what ran', () => {
    const thresholds = { ...Object.fromEntries(RATE_METRICS.map((m) => [m, { 2: 0.5 }])), maxErrorRate: 0.1 }
    const parsed = CellStartRecordSchema.shape.thresholds.parse(thresholds)
    expect(parsed).toEqual(thresholds)
  })
})
