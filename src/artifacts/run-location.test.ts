import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { resolveRunLocation } from './run-location.js'

describe('resolveRunLocation', () => {
  const root = '/project'

  it('reads each variable the one way the reporter and the workers share', () => {
    expect(resolveRunLocation({ SEQK_RUN_ID: 'nightly' }, { root })).toEqual({
      kind: 'new',
      runDir: '/project/.seqk/runs/nightly',
      runId: 'nightly',
      runsDir: '/project/.seqk/runs',
      writeLatest: true,
    })
    expect(resolveRunLocation({ SEQK_OUTPUT_DIR: 'out', SEQK_RUN_ID: 'x' }, { root }).runDir).toBe('/project/out/x')
    // The reporter's option wins over the environment's.
    expect(
      resolveRunLocation({ SEQK_OUTPUT_DIR: 'out', SEQK_RUN_ID: 'x' }, { root, outputDir: '/abs/runs' }).runDir,
    ).toBe('/abs/runs/x')
    expect(resolveRunLocation({ SEQK_RUN_DIR: 'here/r1' }, { root })).toMatchObject({
      kind: 'fixed',
      runDir: '/project/here/r1',
      runId: 'r1',
      writeLatest: false,
    })
    expect(resolveRunLocation({ SEQK_RESUME: '.seqk/runs/r2' }, { root })).toMatchObject({
      kind: 'resume',
      runDir: '/project/.seqk/runs/r2',
      runId: 'r2',
      writeLatest: true,
    })
    expect(resolveRunLocation({ SEQK_RESUME: '/elsewhere/r2' }, { root })).toMatchObject({
      kind: 'resume',
      writeLatest: false,
    })
    expect(resolveRunLocation({}, { root, now: new Date('2026-12-01T10:15:00Z') }).runId).toMatch(
      /^20261201-101500-[0-9a-f]{6}$/,
    )
  })

  it('names the contradiction of a resume into another directory, and none when they agree', () => {
    expect(resolveRunLocation({ SEQK_RESUME: 'a', SEQK_RUN_DIR: 'b' }, { root }).conflict).toBe(
      'SEQK_RESUME (/project/a) and SEQK_RUN_DIR (/project/b) name different run directories; set only SEQK_RESUME to resume a run.',
    )
    expect(resolveRunLocation({ SEQK_RESUME: 'a', SEQK_RUN_DIR: '/project/a' }, { root }).conflict).toBeUndefined()
  })

  it('always gives an absolute directory inside the runs directory unless one is named (seeded property)', () => {
    const name = fc.stringMatching(/^[a-z0-9-]{1,12}$/)
    fc.assert(
      fc.property(fc.option(name, { nil: undefined }), fc.option(name, { nil: undefined }), (id, out) => {
        const location = resolveRunLocation(
          { ...(id ? { SEQK_RUN_ID: id } : {}), ...(out ? { SEQK_OUTPUT_DIR: out } : {}) },
          { root },
        )
        expect(location.runDir.startsWith(`${location.runsDir}/`)).toBe(true)
        expect(location.runDir.endsWith(`/${location.runId}`)).toBe(true)
      }),
      { seed: 26, numRuns: 200 },
    )
  })
})
