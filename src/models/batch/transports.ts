/**
 * The two providers' batch APIs through their official SDKs: OpenAI's Files + Batches (a JSONL
 * file uploaded with purpose `batch`, a batch over it, its output and error files) and
 * Anthropic's Message Batches (the requests in the body, JSONL results by `custom_id`).
 */
import type Anthropic from '@anthropic-ai/sdk'
import type OpenAI from 'openai'
import { TransportError, type RetryOptions } from '../retry.js'
import { pollUntil, type BatchItemOutcome, type BatchTransport } from './gatherer.js'

/** What every request of a transport is held to: a deadline per try (uploads, polls, downloads) and the model's retry policy for polls. */
export interface TransportLimits {
  timeoutMs: number
  retry: RetryOptions
}

const OPENAI_RUNNING = new Set(['validating', 'in_progress', 'finalizing', 'cancelling'])

/**
 * One SDK request under a long-lived signal: the SDKs add an abort listener to the signal they
 * are given and keep it, so a batch polled a hundred times would pile up a hundred. Each request
 * gets its own signal, linked to the batch's only while it runs.
 */
async function linked<T>(
  signal: AbortSignal,
  request: (signal: AbortSignal) => Promise<T>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  if (signal.aborted) throw signal.reason
  const controller = new AbortController()
  const forward = () => controller.abort(signal.reason)
  signal.addEventListener('abort', forward, { once: true })
  // A per-try deadline: a poll whose body stalled hung the batch until the cell's timeout.
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new TransportError(`${what}: no complete response within ${timeoutMs} ms (timeoutMs)`, {
        kind: 'timeout',
      })
      controller.abort(error)
      reject(error)
    }, timeoutMs)
  })
  const pending = request(controller.signal)
  try {
    return await Promise.race([pending, deadline])
  } finally {
    pending.catch(() => {})
    clearTimeout(timer)
    signal.removeEventListener('abort', forward)
  }
}

/**
 * The outcomes in a JSONL results body, read line by line (never the whole file as one string):
 * a line that does not parse is that request's own `malformed` outcome (found by its custom id
 * when the line shows one), never the whole batch's failure.
 */
async function readResults(
  body: ReadableStream<Uint8Array> | null,
  outcomeOf: (entry: unknown) => [string, BatchItemOutcome] | undefined,
  into: Map<string, BatchItemOutcome>,
): Promise<void> {
  if (!body) return
  const decoder = new TextDecoder()
  let rest = ''
  const take = (line: string) => {
    if (line.trim() === '') return
    let entry: unknown
    try {
      entry = JSON.parse(line)
    } catch (error) {
      const id = /"custom_id"\s*:\s*"([^"\\]+)"/.exec(line)?.[1]
      if (id) into.set(id, { kind: 'malformed', reason: `its result line is not JSON (${(error as Error).message})` })
      return
    }
    const outcome = outcomeOf(entry)
    if (outcome) into.set(outcome[0], outcome[1])
  }
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    rest += decoder.decode(chunk, { stream: true })
    const lines = rest.split('\n')
    rest = lines.pop() ?? ''
    for (const line of lines) take(line)
  }
  take(rest + decoder.decode())
}

/**
 * OpenAI's Batch API for one endpoint (`/v1/chat/completions` or `/v1/responses`).
 *
 * @example
 * const transport = openaiBatches(() => client, '/v1/chat/completions')
 */
export function openaiBatches(
  client: () => Promise<OpenAI>,
  endpoint: '/v1/chat/completions' | '/v1/responses',
  limits: TransportLimits,
): BatchTransport {
  const { timeoutMs } = limits
  return {
    provider: 'OpenAI',
    async submit(items, { signal }) {
      const openai = await client()
      const { toFile } = await import('openai')
      const jsonl = `${items.map((i) => JSON.stringify({ custom_id: i.customId, method: 'POST', url: endpoint, body: i.body })).join('\n')}\n`
      const file = await linked(
        signal,
        async (s) =>
          openai.files.create(
            { file: await toFile(Buffer.from(jsonl, 'utf8'), 'seqk-batch.jsonl'), purpose: 'batch' },
            { signal: s },
          ),
        timeoutMs,
        'uploading the batch file',
      )
      return (
        await linked(
          signal,
          (s) => openai.batches.create({ input_file_id: file.id, endpoint, completion_window: '24h' }, { signal: s }),
          timeoutMs,
          'creating the batch',
        )
      ).id
    },
    async wait(batchId, { signal, pollMs, total, onProgress }) {
      const openai = await client()
      let batch: OpenAI.Batch
      try {
        batch = await pollUntil(
          async () => {
            const b = await linked(
              signal,
              (s) => openai.batches.retrieve(batchId, { signal: s }),
              timeoutMs,
              `polling batch ${batchId}`,
            )
            const counts = b.request_counts
            onProgress({
              batchId: b.id,
              provider: 'OpenAI',
              status: b.status === 'finalizing' ? 'finalizing' : OPENAI_RUNNING.has(b.status) ? 'in_progress' : 'ended',
              done: (counts?.completed ?? 0) + (counts?.failed ?? 0),
              total: counts?.total ?? total,
            })
            return OPENAI_RUNNING.has(b.status) ? undefined : b
          },
          pollMs,
          signal,
          limits.retry,
        )
      } catch (error) {
        // Aborted (the test ended, or the deadline passed) or its polls kept failing: the batch is cancelled, not left running.
        await linked(
          new AbortController().signal,
          (s) => openai.batches.cancel(batchId, { signal: s }),
          timeoutMs,
          'cancelling the batch',
        ).catch(() => undefined)
        throw error
      }
      if (batch.status === 'failed') {
        const why =
          batch.errors?.data
            ?.map((e) => `${e.code ?? 'error'}${e.line ? ` (line ${e.line})` : ''}: ${e.message ?? ''}`)
            .join('; ') ?? 'no reason given'
        throw new Error(`the OpenAI batch ${batch.id} failed: ${why}`)
      }
      const outcomes = new Map<string, BatchItemOutcome>()
      for (const fileId of [batch.output_file_id, batch.error_file_id]) {
        if (!fileId) continue
        // Read as it arrives, within the per-try deadline; its bytes are bounded by the client's fetch (batch.maxResultsBytes).
        await linked(
          signal,
          async (s) => readResults((await openai.files.content(fileId, { signal: s })).body, openaiOutcome, outcomes),
          timeoutMs,
          `downloading the results of batch ${batchId}`,
        )
      }
      // A request the files do not mention ended with its batch (the gatherer reads a missing one so).
      return outcomes
    },
  }
}

/** One line of an OpenAI results file as the request's outcome; undefined for a line that names no request. */
function openaiOutcome(line: unknown): [string, BatchItemOutcome] | undefined {
  const entry = line as {
    custom_id?: unknown
    response?: { status_code?: unknown; body?: unknown } | null
    error?: { code?: string | null; message?: string } | null
  } | null
  if (typeof entry?.custom_id !== 'string') return undefined
  const id = entry.custom_id
  if (entry.response && typeof entry.response.status_code === 'number')
    return [id, { kind: 'answered', status: entry.response.status_code, body: entry.response.body }]
  if (entry.error?.code === 'batch_expired') return [id, { kind: 'expired' }]
  if (entry.error?.code === 'batch_cancelled') return [id, { kind: 'cancelled' }]
  if (entry.error)
    return [id, { kind: 'answered', status: 500, body: { error: { message: entry.error.message ?? 'no response' } } }]
  return [id, { kind: 'malformed', reason: 'its result line has neither a response nor an error' }]
}

/** Anthropic's error types as the HTTP statuses the direct API answers them with (the retry loop reads statuses). */
const ANTHROPIC_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
}

/**
 * Anthropic's Message Batches.
 *
 * @example
 * const transport = anthropicBatches(() => client)
 */
export function anthropicBatches(client: () => Promise<Anthropic>, limits: TransportLimits): BatchTransport {
  const { timeoutMs } = limits
  return {
    provider: 'Anthropic',
    async submit(items, { signal }) {
      const anthropic = await client()
      return (
        await linked(
          signal,
          (s) =>
            anthropic.messages.batches.create(
              {
                requests: items.map((i) => ({
                  custom_id: i.customId,
                  params: i.body as unknown as Anthropic.MessageCreateParamsNonStreaming,
                })),
              },
              { signal: s },
            ),
          timeoutMs,
          'creating the batch',
        )
      ).id
    },
    async wait(batchId, { signal, pollMs, total, onProgress }) {
      const anthropic = await client()
      let ended: Anthropic.Messages.MessageBatch
      try {
        ended = await pollUntil(
          async () => {
            const b = await linked(
              signal,
              (s) => anthropic.messages.batches.retrieve(batchId, {}, { signal: s }),
              timeoutMs,
              `polling batch ${batchId}`,
            )
            const c = b.request_counts
            onProgress({
              batchId: b.id,
              provider: 'Anthropic',
              status: b.processing_status === 'ended' ? 'ended' : 'in_progress',
              done: c.succeeded + c.errored + c.canceled + c.expired,
              total: Math.max(total, c.processing + c.succeeded + c.errored + c.canceled + c.expired),
            })
            return b.processing_status === 'ended' ? b : undefined
          },
          pollMs,
          signal,
          limits.retry,
        )
      } catch (error) {
        await linked(
          new AbortController().signal,
          (s) => anthropic.messages.batches.cancel(batchId, {}, { signal: s }),
          timeoutMs,
          'cancelling the batch',
        ).catch(() => undefined)
        throw error
      }
      const outcomes = new Map<string, BatchItemOutcome>()
      const url = ended.results_url
      if (!url) return outcomes
      // The raw JSONL, read line by line (the SDK's decoder fails the whole batch on one bad line).
      await linked(
        signal,
        async (s) =>
          readResults(
            (
              await (anthropic.get(url, {
                headers: { Accept: 'application/binary' },
                __binaryResponse: true,
                signal: s,
              }) as unknown as Promise<Response>)
            ).body,
            anthropicOutcome,
            outcomes,
          ),
        timeoutMs,
        `downloading the results of batch ${batchId}`,
      )
      return outcomes
    },
  }
}

/** One line of Anthropic's results as the request's outcome; undefined for a line that names no request. */
function anthropicOutcome(line: unknown): [string, BatchItemOutcome] | undefined {
  const entry = line as {
    custom_id?: unknown
    result?: { type?: unknown; message?: unknown; error?: { error?: { type?: string } } }
  } | null
  if (typeof entry?.custom_id !== 'string') return undefined
  const id = entry.custom_id
  const r = entry.result
  if (r?.type === 'succeeded') return [id, { kind: 'answered', status: 200, body: r.message }]
  if (r?.type === 'errored')
    return [id, { kind: 'answered', status: ANTHROPIC_STATUS[r.error?.error?.type ?? ''] ?? 500, body: r.error }]
  if (r?.type === 'expired') return [id, { kind: 'expired' }]
  if (r?.type === 'canceled') return [id, { kind: 'cancelled' }]
  return [id, { kind: 'malformed', reason: `its result has no known type (${JSON.stringify(r?.type ?? null)})` }]
}
