import { describe, expect, it } from 'vitest'
import { BatchDeadlineError, BatchGatherer, BatchRequestError, type BatchItem, type BatchItemOutcome, type BatchTransport } from './gatherer.js'

/** A transport whose batches end as `decide` says, recording what it was sent. */
function scriptedTransport(decide: (item: BatchItem, batch: number) => BatchItemOutcome) {
  const batches: { items: BatchItem[]; signal: AbortSignal }[] = []
  const transport: BatchTransport = {
    provider: 'Test',
    async run(items, { signal, onSubmitted }) {
      const n = batches.push({ items: [...items], signal })
      onSubmitted(`batch-${n}`)
      await new Promise((r) => setTimeout(r, 5))
      if (signal.aborted) throw signal.reason
      return new Map(items.map((i) => [i.customId, decide(i, n)]))
    },
  }
  return { transport, batches }
}

const ok = (i: BatchItem): BatchItemOutcome => ({ kind: 'answered', status: 200, body: { echo: i.body.q } })

describe('BatchGatherer', () => {
  it('gathers calls that arrive together into one batch, and splits at maxBatch', async () => {
    const { transport, batches } = scriptedTransport(ok)
    const g = new BatchGatherer(transport, { gatherMs: 20, maxBatch: 3 })
    const answers = await Promise.all([1, 2, 3, 4, 5].map((q) => g.submit({ q })))
    expect(answers).toEqual([1, 2, 3, 4, 5].map((q) => ({ echo: q })))
    expect(batches.map((b) => b.items.length)).toEqual([3, 2])
    expect(g.submitted).toEqual(['batch-1', 'batch-2'])
  })

  it("rejects a request that failed inside the batch with its status (the retry loop reads it), resolving the others", async () => {
    const { transport } = scriptedTransport((i) => (i.body.q === 2 ? { kind: 'answered', status: 400, body: { error: { message: 'bad field' } } } : ok(i)))
    const g = new BatchGatherer(transport, { gatherMs: 5 })
    const [a, b] = await Promise.allSettled([g.submit({ q: 1 }), g.submit({ q: 2 })])
    expect(a).toEqual({ status: 'fulfilled', value: { echo: 1 } })
    expect(b.status).toBe('rejected')
    const error = (b as PromiseRejectedResult).reason as BatchRequestError
    expect(error).toBeInstanceOf(BatchRequestError)
    expect(error.status).toBe(400)
    expect(error.message).toBe('HTTP 400 inside the Test batch: bad field')
  })

  it('resubmits an expired request into the next batch, and gives up past `resubmit` with a deadline error (go direct)', async () => {
    const { transport, batches } = scriptedTransport((i, n) => (n === 1 || i.body.q === 'never' ? { kind: 'expired' } : ok(i)))
    const g = new BatchGatherer(transport, { gatherMs: 5, resubmit: 2 })
    await expect(g.submit({ q: 'soon' })).resolves.toEqual({ echo: 'soon' })
    await expect(g.submit({ q: 'never' })).rejects.toBeInstanceOf(BatchDeadlineError)
    // soon: batches 1 (expired) and 2; never: 3, 4 and 5 (two resubmits).
    expect(batches.map((b) => b.items.map((i) => i.body.q))).toEqual([['soon'], ['soon'], ['never'], ['never'], ['never']])
  })

  it('aborts the batch when every caller aborted, and a caller that aborts gets its own reason', async () => {
    const { transport, batches } = scriptedTransport(ok)
    const g = new BatchGatherer(transport, { gatherMs: 1 })
    const controller = new AbortController()
    const pending = g.submit({ q: 1 }, controller.signal)
    await new Promise((r) => setTimeout(r, 3))
    controller.abort(new Error('test ended'))
    await expect(pending).rejects.toThrow('test ended')
    expect(batches[0]!.signal.aborted).toBe(true)
  })

  it('ends the wait at the deadline with a BatchDeadlineError', async () => {
    const transport: BatchTransport = { provider: 'Test', run: (_items, { signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))) }
    const g = new BatchGatherer(transport, { gatherMs: 1, deadlineMs: 30 })
    await expect(g.submit({ q: 1 })).rejects.toThrow(/did not end within its deadline \(30 ms/)
  })
})
