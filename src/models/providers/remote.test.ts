import { describe, expect, it } from 'vitest'
import { freeTrySignals, loadOnce, remoteChatModel } from './remote.js'

describe('loadOnce', () => {
  it('loads on first use only, and tries again after a failed load', async () => {
    let loads = 0
    const sdk = loadOnce(async () => {
      loads++
      if (loads === 1) throw new Error('module not found')
      return { client: loads }
    })
    expect(loads).toBe(0)
    await expect(sdk()).rejects.toThrow('module not found')
    const [a, b] = await Promise.all([sdk(), sdk()])
    expect(a).toBe(b)
    expect(await sdk()).toEqual({ client: 2 })
    expect(loads).toBe(2)
  })
})

describe('remoteChatModel: one try, one signal of its own', () => {
  const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }
  const context = { role: 'actor' as const, taskId: 't', attempt: 1, repeat: 0, protocol: 'sequential' as const }
  const request = { messages: [{ role: 'user' as const, content: 'hi' }], context }
  const answer = { text: 'ok', usage, finishReason: 'stop' as const }
  /** A model whose SDK call is `call`, with a short try timeout and no retries. */
  const modelOf = (call: (signal: AbortSignal) => Promise<typeof answer>, id = 'fake') =>
    remoteChatModel({
      id,
      descriptor: { provider: 'fake', model: id, params: {} },
      endpoint: `fake|${id}`,
      options: { timeoutMs: 50, retry: { maxRetries: 0 } },
      client: async () => ({}),
      call: (_client, _messages, signal) => call(signal!),
    })

  it("reuses a finished try's signal, never one a try aborted, and never one in flight", async () => {
    // The list is the process's: another file's tries in this worker may have left leases near retirement.
    freeTrySignals.length = 0
    const seen: AbortSignal[] = []
    let hang = false
    const model = modelOf((signal) => {
      seen.push(signal)
      return hang ? new Promise(() => {}) : Promise.resolve(answer)
    }, 'reuse')
    await model.chat(request)
    await model.chat(request)
    // Sequential calls: the second try took the first one's signal, unaborted.
    expect(seen[1]).toBe(seen[0])
    hang = true
    await expect(model.chat(request)).rejects.toThrow(/no complete response within 50 ms/)
    expect(seen[2]!.aborted).toBe(true)
    hang = false
    await model.chat(request)
    expect(seen[3]).not.toBe(seen[2])
    expect(seen[3]!.aborted).toBe(false)
    // Calls in flight together each hold their own.
    seen.length = 0
    await Promise.all([model.chat(request), model.chat(request), model.chat(request)])
    expect(new Set(seen).size).toBe(3)
  })

  it("a try's timeout aborts its own request only, not a call in flight beside it", async () => {
    const signals: AbortSignal[] = []
    let calls = 0
    const model = modelOf((signal) => {
      signals.push(signal)
      // The first call hangs past its timeout; the second answers after the first timed out.
      return ++calls === 1 ? new Promise(() => {}) : new Promise((resolve) => setTimeout(() => resolve(answer), 30))
    }, 'beside')
    const first = model.chat(request)
    await new Promise((resolve) => setTimeout(resolve, 35))
    const second = model.chat(request)
    await expect(first).rejects.toThrow(/no complete response within 50 ms/)
    await expect(second).resolves.toMatchObject({ text: 'ok' })
    expect(signals[0]!.aborted).toBe(true)
    expect(signals[1]!.aborted).toBe(false)
  })

  it('a signal carries at most 8 listeners an SDK left on it (openai leaves one per request), below Node’s warning', async () => {
    const listeners = new Map<AbortSignal, number>()
    const warnings: Error[] = []
    const onWarning = (warning: Error) => warnings.push(warning)
    process.on('warning', onWarning)
    try {
      const model = modelOf(async (signal) => {
        signal.addEventListener('abort', () => {}, { once: true })
        listeners.set(signal, (listeners.get(signal) ?? 0) + 1)
        return answer
      }, 'listeners')
      for (let i = 0; i < 40; i++) await model.chat(request)
      expect(Math.max(...listeners.values())).toBeLessThanOrEqual(8)
      expect(listeners.size).toBeGreaterThanOrEqual(5)
    } finally {
      process.off('warning', onWarning)
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([])
  })

  it("a caller's abort reaches the try's signal and ends the call with the caller's reason", async () => {
    let tried: AbortSignal | undefined
    const model = modelOf((signal) => {
      tried = signal
      return new Promise(() => {})
    }, 'caller')
    const controller = new AbortController()
    const call = model.chat({ ...request, signal: controller.signal })
    await new Promise((resolve) => setTimeout(resolve, 5))
    controller.abort(new Error('cancelled by the test'))
    await expect(call).rejects.toThrow('cancelled by the test')
    expect(tried!.aborted).toBe(true)
  })
})
