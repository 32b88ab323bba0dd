import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { STATISTICS, statistic, computeStatistics } from './index.js'
import { statisticModules } from './registry-file.js'

describe('the statistics registry', () => {
  it('lists every module of its folder (all.ts is not stale: run `npm run schemas`)', async () => {
    const ids: string[] = []
    for (const file of statisticModules()) {
      const mod = (await import(`./${file.replace(/\.ts$/, '.js')}`)) as { default: { id: string } }
      ids.push(mod.default.id)
    }
    expect(STATISTICS.map((s) => s.id)).toEqual(ids)
  })

  it('gives each statistic a unique camelCase id, a label, a description, protocols, and a column with a unique order', () => {
    const ids = STATISTICS.map((s) => s.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const s of STATISTICS) {
      expect(s.id).toMatch(/^[a-z][A-Za-z0-9]*$/)
      expect(s.label.length).toBeGreaterThan(0)
      expect(s.description.length).toBeGreaterThan(0)
      expect(s.protocols.length).toBeGreaterThan(0)
      if (s.detail) expect(() => z.toJSONSchema(s.detail!)).not.toThrow()
    }
    const orders = STATISTICS.flatMap((s) => (s.column ? [s.column.order] : []))
    expect(new Set(orders).size).toBe(orders.length)
    expect(() => statistic('nope')).toThrow(/no statistic 'nope'; the registry has .*gain/)
  })

  it('computes nothing for a cell of a protocol a statistic does not apply to', () => {
    const sequentialOnly = STATISTICS.filter((s) => !s.protocols.includes('independent')).map((s) => s.id)
    expect(sequentialOnly.length).toBeGreaterThan(0)
    const entries = computeStatistics({
      protocol: { kind: 'independent', budget: 2 } as never,
      K: 2,
      independent: true,
      policy: 'censored',
      trajectories: [],
      counted: [],
      outcomes: [],
      headline: [null, null],
    })
    for (const id of sequentialOnly) expect(entries[id]).toBeUndefined()
  })
})
