/**
 * Batching of independent model calls: calls that arrive close together are gathered
 * and sent as one provider batch, at the batch price. Seq@K fits batches naturally: every
 * unfinished trajectory's next attempt is independent of the others, so a cell runs in rounds
 * without the loop knowing: the attempts of a round arrive together (their verdicts and feedback
 * take milliseconds next to a batch's minutes), are gathered into one batch, and the next round's
 * revisions into the next.
 */
import { canonicalJson, sha256 } from '../../core/fingerprint.js'
import { classifyFailure, retryDelay, sleep, type RetryOptions } from '../retry.js'
import { appendLedger, readLedger } from './ledger.js'

/** One request of a batch, as its provider's batch file or body takes it. */
export interface BatchItem {
  customId: string
  /** The request body the direct API would get (model, messages, decoding parameters). */
  body: Record<string, unknown>
}

/** How one request of a batch ended. */
export type BatchItemOutcome =
  | { kind: 'answered'; status: number; body: unknown }
  | { kind: 'expired' }
  | { kind: 'cancelled' }
  /** Its result line could not be read: asked again alone, in the next batch. */
  | { kind: 'malformed'; reason: string }

/** What the gatherer hears of a batch while it runs (for progress lines). */
export interface BatchProgress {
  batchId: string
  provider: string
  /** `submitted`, `in_progress`, `finalizing`, `ended`. */
  status: string
  done: number
  total: number
}

/**
 * A provider's batch API: `submit` sends the items as one batch and names it; `wait` polls a
 * batch (this process's, or one a killed run submitted) until it ends and returns every item's
 * outcome, cancelling the batch when the signal aborts.
 */
export interface BatchTransport {
  readonly provider: string
  submit(items: readonly BatchItem[], options: { signal: AbortSignal }): Promise<string>
  wait(
    batchId: string,
    options: { signal: AbortSignal; pollMs: number; total: number; onProgress: (p: BatchProgress) => void },
  ): Promise<Map<string, BatchItemOutcome>>
}

/** The `batch` option of the OpenAI and Anthropic models. */
export interface BatchOptions {
  /** How often a running batch is polled, in ms (default 30 000). */
  pollMs?: number
  /** Calls gathered until none has arrived for this long, in ms (default 500). */
  gatherMs?: number
  /** The largest batch (default 10 000; OpenAI allows 50 000 per file, Anthropic 100 000). */
  maxBatch?: number
  /**
   * A call not answered by a batch this long after it was first submitted goes through the
   * normal API instead, at the normal price (default 24 hours, the providers' window). Said in
   * the call's record (`batched: false`).
   */
  deadlineMs?: number
  /** An expired or cancelled batch's requests are resubmitted up to this many times (default 2). */
  resubmit?: number
  /** Largest results file read, in bytes (default 512 MiB); it is read line by line. */
  maxResultsBytes?: number
}

const progressListeners = new Set<(p: BatchProgress) => void>()

/**
 * Hears every batch's progress in this process (submitted, in progress n/m, finalizing, ended):
 * the eval reports it as live progress. Returns the function that stops listening.
 *
 * @example
 * const stop = onBatchProgress((p) => console.log(batchNoticeText(p))) // OpenAI batch: in progress 12/40
 */
export function onBatchProgress(listener: (p: BatchProgress) => void): () => void {
  progressListeners.add(listener)
  return () => progressListeners.delete(listener)
}

/** One short line for a batch's progress, for a progress line: "OpenAI batch: in progress 12/40" (the id is in batches.jsonl). */
export function batchNoticeText(p: BatchProgress): string {
  const status =
    p.status === 'in_progress'
      ? `in progress ${p.done}/${p.total}`
      : p.status === 'finalizing'
        ? 'finalising'
        : p.status === 'submitted'
          ? `submitted, ${p.total} ${p.total === 1 ? 'request' : 'requests'}`
          : p.status
  return `${p.provider} batch: ${status}`
}

/** Thrown for a call whose batch deadline passed: the caller sends it through the normal API. */
export class BatchDeadlineError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'BatchDeadlineError'
  }
}

/**
 * A batch's status polls failed `maxRetries + 1` times in a row (each within `timeoutMs`, with
 * backoff between): the batch is cancelled and its calls go through the normal API (it is a
 * {@link BatchDeadlineError}).
 */
export class BatchPollsFailedError extends BatchDeadlineError {
  constructor(message: string) {
    super(message)
    this.name = 'BatchPollsFailedError'
  }
}

/** A request's error inside a batch, with its HTTP status, so the retry loop classifies it as the direct call's error. */
export class BatchRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
    super(message)
    this.name = 'BatchRequestError'
  }
}

interface Pending {
  item: BatchItem
  /** Hash of the call's identity and body: how a resumed run finds this request in a batch a killed run submitted. */
  key: string
  firstSubmitted: number
  resubmits: number
  signal: AbortSignal | undefined
  resolve: (body: unknown) => void
  reject: (error: unknown) => void
}

/**
 * Gathers calls into batches for one transport. `submit` resolves with the request's response
 * body (what the direct API would have returned) or rejects with a `BatchRequestError` (the
 * request failed inside the batch: the caller's retry loop decides), a `BatchDeadlineError` (go
 * direct), or the caller's abort reason. A batch all of whose callers aborted is cancelled.
 *
 * @example
 * const gatherer = new BatchGatherer(openaiBatches(client, '/v1/chat/completions'), { pollMs: 1000 })
 * const body = await gatherer.submit({ model: 'gpt-4.1-mini', messages }, signal)
 */
export class BatchGatherer {
  private queue: Pending[] = []
  private timer: ReturnType<typeof setTimeout> | undefined
  private serial = 0
  private readonly pollMs: number
  private readonly gatherMs: number
  private readonly maxBatch: number
  private readonly deadlineMs: number
  private readonly resubmit: number
  /** Every batch id this gatherer submitted (the run directory records them for a resume). */
  readonly submitted: string[] = []
  /** Requests of batches an earlier (killed) run submitted, by body hash, not yet served. */
  private earlier: Map<string, { batchId: string; customId: string }[]> | undefined
  /** Those batches' outcomes, collected once each. */
  private readonly collected = new Map<string, Promise<Map<string, BatchItemOutcome>>>()
  /** Requests served from an earlier run's batch instead of a new one. */
  recovered = 0
  private readonly onProgress: (p: BatchProgress) => void

  constructor(
    private readonly transport: BatchTransport,
    options: BatchOptions = {},
    onProgress: (p: BatchProgress) => void = () => {},
  ) {
    const said = new Map<string, string>()
    this.onProgress = (p) => {
      onProgress(p)
      for (const listener of progressListeners) listener(p)
      // Each change of status (not every poll) goes to the run directory, for the live view.
      const status =
        p.status === 'in_progress' ? `in_progress:${Math.floor((4 * p.done) / Math.max(1, p.total))}` : p.status
      if (said.get(p.batchId) === status) return
      said.set(p.batchId, status)
      appendLedger({
        schema: 'seqk.batch-status/1',
        provider: p.provider,
        batchId: p.batchId,
        status: p.status,
        done: p.done,
        total: p.total,
        at: new Date().toISOString(),
      })
    }
    this.pollMs = options.pollMs ?? 30_000
    this.gatherMs = options.gatherMs ?? 500
    this.maxBatch = options.maxBatch ?? 10_000
    this.deadlineMs = options.deadlineMs ?? 86_400_000
    this.resubmit = options.resubmit ?? 2
  }

  /**
   * Sends `body` in the next batch. `identity` names the call (its cell, task, repeat, attempt and
   * role): a resumed run serves a call from a killed run's batch only when both match, so two
   * repeats with the same prompt never share one answer.
   */
  submit(body: Record<string, unknown>, signal?: AbortSignal, identity: unknown = null): Promise<unknown> {
    if (signal?.aborted) return Promise.reject(signal.reason)
    return new Promise((resolve, reject) => {
      const pending: Pending = {
        item: { customId: `req-${Date.now().toString(36)}-${++this.serial}`, body },
        key: sha256(canonicalJson({ identity, body })),
        firstSubmitted: Date.now(),
        resubmits: 0,
        signal,
        resolve,
        reject,
      }
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true })
      const earlier = this.takeEarlier(pending.key)
      if (earlier) void this.recover(pending, earlier)
      else this.enqueue(pending)
    })
  }

  /** A request of the same body in a batch an earlier run of this run directory submitted, if one is left. */
  private takeEarlier(key: string): { batchId: string; customId: string } | undefined {
    if (!this.earlier) {
      this.earlier = new Map()
      for (const record of readLedger()) {
        if (record.provider !== this.transport.provider) continue
        for (const item of record.items) {
          if (!this.earlier.has(item.key)) this.earlier.set(item.key, [])
          this.earlier.get(item.key)!.push({ batchId: record.batchId, customId: item.customId })
        }
      }
    }
    return this.earlier.get(key)?.shift()
  }

  /** Serves a request from the earlier batch (collected once, however long it still runs); anything but an answer sends it anew. */
  private async recover(pending: Pending, earlier: { batchId: string; customId: string }): Promise<void> {
    const signal = pending.signal ?? new AbortController().signal
    let outcomes = this.collected.get(earlier.batchId)
    if (!outcomes) {
      outcomes = this.transport.wait(earlier.batchId, {
        signal,
        pollMs: this.pollMs,
        total: 0,
        onProgress: this.onProgress,
      })
      this.collected.set(earlier.batchId, outcomes)
    }
    const outcome = await outcomes.then(
      (m) => m.get(earlier.customId),
      () => undefined,
    )
    if (outcome?.kind === 'answered' && outcome.status < 300) {
      this.recovered++
      pending.resolve(outcome.body)
    } else if (!pending.signal?.aborted) this.enqueue(pending)
  }

  private enqueue(pending: Pending): void {
    this.queue.push(pending)
    if (this.queue.length >= this.maxBatch) return this.flush()
    // Gathered until the calls stop arriving: a round's attempts come together.
    clearTimeout(this.timer)
    this.timer = setTimeout(() => this.flush(), this.gatherMs)
    this.timer.unref?.()
  }

  private flush(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    const live = this.queue.filter((p) => !p.signal?.aborted)
    this.queue = []
    for (let i = 0; i < live.length; i += this.maxBatch) void this.send(live.slice(i, i + this.maxBatch))
  }

  private async send(batch: Pending[]): Promise<void> {
    const controller = new AbortController()
    // A batch nobody waits for any more is cancelled (aborting the test cancels it).
    const watch = () => {
      if (batch.every((p) => p.signal?.aborted)) controller.abort(new Error('every call of the batch was aborted'))
    }
    for (const p of batch) p.signal?.addEventListener('abort', watch, { once: true })
    // The earliest deadline of the batch's calls ends the wait for all of them.
    const deadline = Math.min(...batch.map((p) => p.firstSubmitted + this.deadlineMs))
    const timer = setTimeout(
      () =>
        controller.abort(
          new BatchDeadlineError(
            `the batch did not end within its deadline (${this.deadlineMs} ms after the call was first submitted)`,
          ),
        ),
      Math.max(0, deadline - Date.now()),
    )
    timer.unref?.()
    let outcomes: Map<string, BatchItemOutcome>
    try {
      // The submission is not cut short by an abort: a batch the server created but whose id never
      // reached us could not be cancelled (and would be paid for). Each of its requests is bounded by
      // timeoutMs; the wait below sees an abort at once and cancels the batch.
      const batchId = await this.transport.submit(
        batch.map((p) => p.item),
        { signal: new AbortController().signal },
      )
      this.submitted.push(batchId)
      // Recorded before the wait: a run killed now finds it when resumed.
      appendLedger({
        schema: 'seqk.batch/1',
        provider: this.transport.provider,
        batchId,
        items: batch.map((p) => ({ customId: p.item.customId, key: p.key })),
        submittedAt: new Date().toISOString(),
      })
      this.onProgress({ batchId, provider: this.transport.provider, status: 'submitted', done: 0, total: batch.length })
      outcomes = await this.transport.wait(batchId, {
        signal: controller.signal,
        pollMs: this.pollMs,
        total: batch.length,
        onProgress: this.onProgress,
      })
    } catch (error) {
      const reason = controller.signal.aborted ? controller.signal.reason : error
      for (const p of batch) p.reject(reason)
      return
    } finally {
      clearTimeout(timer)
      for (const p of batch) p.signal?.removeEventListener('abort', watch)
    }
    for (const p of batch) {
      // A request its batch's results do not mention ended with the batch: sent again, like an expired one.
      const outcome: BatchItemOutcome = outcomes.get(p.item.customId) ?? { kind: 'expired' }
      if (outcome.kind === 'answered') {
        if (outcome.status < 300) p.resolve(outcome.body)
        else
          p.reject(
            new BatchRequestError(
              outcome.status,
              `HTTP ${outcome.status} inside the ${this.transport.provider} batch: ${errorMessage(outcome.body)}`,
              outcome.body,
            ),
          )
      } else if (p.resubmits < this.resubmit && Date.now() - p.firstSubmitted < this.deadlineMs) {
        // An expired or cancelled batch, or a result line that could not be read, is not the
        // request's fault: it alone goes into the next batch (the answered ones are never sent again).
        p.resubmits++
        this.enqueue(p)
      } else {
        const what =
          outcome.kind === 'malformed' ? `had a result that could not be read (${outcome.reason})` : outcome.kind
        p.reject(
          new BatchDeadlineError(
            `the request ${what} in ${p.resubmits + 1} ${p.resubmits === 0 ? 'batch' : 'batches'}`,
          ),
        )
      }
    }
  }
}

function errorMessage(body: unknown): string {
  const e = (body as { error?: { message?: unknown } } | null)?.error
  return typeof e?.message === 'string' ? e.message : (JSON.stringify(body)?.slice(0, 200) ?? 'no body')
}

/**
 * Polls `check` every `pollMs` until it returns a value (abortable). A poll that fails retryably
 * (a timeout, a 5xx, a dropped connection) is tried again with the retry policy's backoff; after
 * `maxRetries + 1` failures in a row it throws a {@link BatchPollsFailedError}, so a batch whose
 * polls keep failing ends within about (maxRetries + 1) × (timeoutMs + backoff).
 */
export async function pollUntil<T>(
  check: () => Promise<T | undefined>,
  pollMs: number,
  signal: AbortSignal,
  retry: RetryOptions = {},
): Promise<T> {
  let failures = 0
  for (;;) {
    let done: T | undefined
    try {
      done = await check()
      failures = 0
    } catch (error) {
      if (signal.aborted) throw signal.reason
      const failure = classifyFailure(error)
      if (!failure.retryable) throw error
      failures++
      if (failures > (retry.maxRetries ?? 5))
        throw new BatchPollsFailedError(
          `its status polls failed ${failures} times in a row (the last: ${failure.reason}), so the batch was cancelled and its calls go through the normal API`,
        )
      await sleep(retryDelay(failures, failure, retry), signal)
      continue
    }
    if (done !== undefined) return done
    await sleep(pollMs, signal)
  }
}
