import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { DEFAULT_RUNS_DIR, ensureRunDir, newRunId } from './run-dir.js'

const root = mkdtempSync(join(tmpdir(), 'seqk-rundir-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('newRunId', () => {
  it('is the UTC date and time plus four hex digits', () => {
    const id = newRunId(new Date('2026-11-30T05:23:01.999Z'))
    expect(id).toMatch(/^20261130-052301-[0-9a-f]{6}$/)
    expect(newRunId()).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}$/)
  })

  it('sorts by time', () => {
    const ids = ['2025-12-31T23:59:59Z', '2026-01-01T00:00:00Z', '2026-01-01T00:00:01Z', '2026-10-01T09:00:00Z'].map(
      (t) => newRunId(new Date(t)),
    )
    expect([...ids].sort()).toEqual(ids)
  })

  it('differs between runs started in the same second', () => {
    const now = new Date('2026-01-01T00:00:00Z')
    const ids = Array.from({ length: 200 }, () => newRunId(now))
    // 16 random bits: a few birthday collisions among 200 are possible, many are not.
    expect(new Set(ids).size).toBeGreaterThan(190)
  })
})

describe('ensureRunDir', () => {
  it('creates <root>/<runsDir>/<runId> for a relative runsDir, and is idempotent', () => {
    const dir = ensureRunDir(root, DEFAULT_RUNS_DIR, 'run-a')
    expect(dir).toBe(join(root, '.seqk', 'runs', 'run-a'))
    expect(statSync(dir).isDirectory()).toBe(true)
    expect(ensureRunDir(root, DEFAULT_RUNS_DIR, 'run-a')).toBe(dir)
  })

  it('uses an absolute runsDir as is', () => {
    const absolute = join(root, 'elsewhere')
    const dir = ensureRunDir('/does/not/matter', absolute, 'run-b')
    expect(dir).toBe(join(absolute, 'run-b'))
    expect(existsSync(dir)).toBe(true)
  })
})
