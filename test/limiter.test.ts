// The e2e files' limiter (test/fixture-project.ts): never more jobs at once than its limit, every
// job runs, and a failed job gives its slot back.
import { describe, expect, it } from 'vitest'
import { limiter } from './fixture-project.js'

/** A job that ends when `release()` is called, recording how many jobs were running meanwhile. */
function gatedJobs(count: number) {
  let running = 0
  let most = 0
  const releases: (() => void)[] = []
  const jobs = Array.from({ length: count }, (_, i) => async () => {
    running++
    most = Math.max(most, running)
    await new Promise<void>((resolve) => releases.push(resolve))
    running--
    return i
  })
  return { jobs, releases, running: () => running, most: () => most }
}

/** Lets every promise callback that can run, run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('limiter', () => {
  it.each([1, 2, 4])('runs at most %i jobs at once, and every job, with its own result', async (limit) => {
    const slot = limiter(limit)
    const { jobs, releases, running, most } = gatedJobs(9)
    const results = Promise.all(jobs.map((job) => slot(job)))
    for (let ended = 0; ended < 9; ended++) {
      await settle()
      expect(running()).toBe(Math.min(limit, 9 - ended))
      releases.shift()!()
    }
    expect(await results).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8])
    expect(most()).toBe(limit)
  })

  it('a job that fails rejects its own promise and frees its slot for the next', async () => {
    const slot = limiter(1)
    const failed = slot(() => Promise.reject(new Error('boom')))
    const next = slot(async () => 'ran')
    await expect(failed).rejects.toThrow('boom')
    expect(await next).toBe('ran')
  })
})
