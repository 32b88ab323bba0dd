import { describe, expect, it } from 'vitest'
import { withSpentCalls, type ModelCall } from './chat-model.js'
import { callCache } from './call-cache.js'

const call = (costUsd: number): ModelCall => ({
  role: 'grader',
  usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
  latencyMs: 1,
  costUsd,
  costUsdWithoutCache: costUsd,
  replayed: false,
})

describe('callCache', () => {
  it('runs a key once, in flight or done, and serves it again with its calls marked replayed at their nominal cost', async () => {
    const stats = { runs: 0, hits: 0 }
    const cached = callCache<{ value: string; calls: ModelCall[] }>({
      enabled: true,
      onRun: () => stats.runs++,
      onHit: () => stats.hits++,
    })
    let started = 0
    const run = async () => ({ value: `v${++started}`, calls: [call(0.5)] })
    const [a, b] = await Promise.all([cached({ q: 1 }, run), cached({ q: 1 }, run)])
    const c = await cached({ q: 1 }, run)
    expect([a.value, b.value, c.value, started]).toEqual(['v1', 'v1', 'v1', 1])
    expect(a.calls[0]!.replayed).toBe(false)
    expect([b.calls[0]!.replayed, c.calls[0]!.costUsd]).toEqual([true, 0.5])
    expect(stats).toEqual({ runs: 1, hits: 2 })
  })

  it('serves a failure to those already waiting (their calls replayed), then runs the key again', async () => {
    const cached = callCache<{ calls: ModelCall[] }>({ enabled: true, onRun: () => {}, onHit: () => {} })
    let tries = 0
    const run = async () => {
      tries++
      if (tries === 1) throw withSpentCalls(new Error('bad grading'), [call(0.25)])
      return { calls: [] }
    }
    const [first, waiting] = await Promise.allSettled([cached('k', run), cached('k', run)])
    expect(first.status).toBe('rejected')
    expect(waiting.status).toBe('rejected')
    await expect(cached('k', run)).resolves.toEqual({ calls: [] })
    expect(tries).toBe(2)
  })

  it('runs every request when disabled', async () => {
    let runs = 0
    const cached = callCache<{ calls: ModelCall[] }>({ enabled: false, onRun: () => runs++, onHit: () => {} })
    await cached('k', async () => ({ calls: [] }))
    await cached('k', async () => ({ calls: [] }))
    expect(runs).toBe(2)
  })
})
