import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useBatchLedger } from './ledger.js'
import {
  BatchDeadlineError,
  BatchGatherer,
  BatchRequestError,
  type BatchItem,
  type BatchItemOutcome,
  type BatchTransport,
} from './gatherer.js'

/** A transport whose batches end as `decide` says, recording what it was sent. */
function scriptedTransport(decide: (item: BatchItem, batch: number) => BatchItemOutcome) {
  const batches: { items: BatchItem[]; signal: AbortSignal; waitSignal?: AbortSignal }[] = []
  const transport: BatchTransport = {
    provider: 'Test',
    async submit(items, { signal }) {
      return `batch-${batches.push({ items: [...items], signal })}`
    },
    async wait(batchId, { signal }) {
      const n = Number(batchId.slice('batch-'.length))
      batches[n - 1]!.waitSignal = signal
      await new Promise((r) => setTimeout(r, 5))
      if (signal.aborted) throw signal.reason
      return new Map(batches[n - 1]!.items.map((i) => [i.customId, decide(i, n)]))
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

  it('rejects a request that failed inside the batch with its status (the retry loop reads it), resolving the others', async () => {
    const { transport } = scriptedTransport((i) =>
      i.body.q === 2 ? { kind: 'answered', status: 400, body: { error: { message: 'bad field' } } } : ok(i),
    )
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
    const { transport, batches } = scriptedTransport((i, n) =>
      n === 1 || i.body.q === 'never' ? { kind: 'expired' } : ok(i),
    )
    const g = new BatchGatherer(transport, { gatherMs: 5, resubmit: 2 })
    await expect(g.submit({ q: 'soon' })).resolves.toEqual({ echo: 'soon' })
    await expect(g.submit({ q: 'never' })).rejects.toBeInstanceOf(BatchDeadlineError)
    // soon: batches 1 (expired) and 2; never: 3, 4 and 5 (two resubmits).
    expect(batches.map((b) => b.items.map((i) => i.body.q))).toEqual([
      ['soon'],
      ['soon'],
      ['never'],
      ['never'],
      ['never'],
    ])
  })

  it('aborts the batch when every caller aborted, and a caller that aborts gets its own reason', async () => {
    const { transport, batches } = scriptedTransport(ok)
    const g = new BatchGatherer(transport, { gatherMs: 1 })
    const controller = new AbortController()
    const pending = g.submit({ q: 1 }, controller.signal)
    await new Promise((r) => setTimeout(r, 3))
    controller.abort(new Error('test ended'))
    await expect(pending).rejects.toThrow('test ended')
    // The submission runs to its end (a batch created without its id reaching us could not be
    // cancelled); the wait is what the abort ends, and a real transport then cancels the batch.
    expect(batches[0]!.signal.aborted).toBe(false)
    expect(batches[0]!.waitSignal?.aborted).toBe(true)
  })

  it('ends the wait at the deadline with a BatchDeadlineError', async () => {
    const transport: BatchTransport = {
      provider: 'Test',
      submit: async () => 'batch-1',
      wait: (_id, { signal }) =>
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    }
    const g = new BatchGatherer(transport, { gatherMs: 1, deadlineMs: 30 })
    await expect(g.submit({ q: 1 })).rejects.toThrow(/did not end within its deadline \(30 ms/)
  })
})

/** Runs `body` with a ledger file of its own (a run directory's batches.jsonl), removed after. */
async function withLedger(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'seqk-ledger-'))
  useBatchLedger(() => join(dir, 'batches.jsonl'))
  try {
    await body(dir)
  } finally {
    useBatchLedger(undefined)
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('BatchGatherer with a run directory ledger', () => {
  it('a new process serves a request from the batch an earlier (killed) one submitted, without a new batch', async () => {
    await withLedger(async (dir) => {
      const { transport, batches } = scriptedTransport(ok)
      // The first process submits and is killed before it reads the results.
      const first = new BatchGatherer(transport, { gatherMs: 1 })
      void first.submit({ q: 'kept' })
      await new Promise((r) => setTimeout(r, 3))
      expect(readFileSync(join(dir, 'batches.jsonl'), 'utf8')).toMatch(/"batchId":"batch-1"/)
      // The resumed process asks the same: it waits on batch-1 instead of sending batch-2.
      const resumed = new BatchGatherer(transport, { gatherMs: 1 })
      await expect(resumed.submit({ q: 'kept' })).resolves.toEqual({ echo: 'kept' })
      expect(resumed.recovered).toBe(1)
      expect(batches).toHaveLength(1)
      // A request the earlier batch did not hold is sent as usual.
      await expect(resumed.submit({ q: 'new' })).resolves.toEqual({ echo: 'new' })
      expect(batches).toHaveLength(2)
    })
  })

  it("never serves one call another call's answer: two repeats with the same prompt stay two samples", async () => {
    await withLedger(async () => {
      // Each answer names the request it answered, so two answers to one prompt differ.
      const { transport, batches } = scriptedTransport((i) => ({
        kind: 'answered',
        status: 200,
        body: { answered: i.customId },
      }))
      const first = new BatchGatherer(transport, { gatherMs: 1 })
      void first.submit({ q: 'same' }, undefined, { repeat: 0 })
      void first.submit({ q: 'same' }, undefined, { repeat: 1 })
      await new Promise((r) => setTimeout(r, 3))
      const sent = batches[0]!.items.map((i) => i.customId)
      // Resumed: repeat 0 had ended and is kept; only repeat 1 asks again, and gets repeat 1's answer.
      const resumed = new BatchGatherer(transport, { gatherMs: 1 })
      await expect(resumed.submit({ q: 'same' }, undefined, { repeat: 1 })).resolves.toEqual({ answered: sent[1] })
      expect(batches).toHaveLength(1)
    })
  })
})

describe('batch progress', () => {
  it('every listener hears a batch submitted, and the notice is one short line', async () => {
    const { onBatchProgress, batchNoticeText } = await import('./gatherer.js')
    const heard: string[] = []
    const stop = onBatchProgress((p) => heard.push(batchNoticeText(p)))
    try {
      const { transport } = scriptedTransport(ok)
      await new BatchGatherer(transport, { gatherMs: 1 }).submit({ q: 1 })
    } finally {
      stop()
    }
    expect(heard).toEqual(['Test batch: submitted, 1 request'])
    expect(batchNoticeText({ batchId: 'b', provider: 'OpenAI', status: 'in_progress', done: 12, total: 40 })).toBe(
      'OpenAI batch: in progress 12/40',
    )
    expect(batchNoticeText({ batchId: 'b', provider: 'Anthropic', status: 'finalizing', done: 40, total: 40 })).toBe(
      'Anthropic batch: finalising',
    )
  })
})
