/**
 * The two providers' batch APIs through their official SDKs: OpenAI's Files + Batches (a JSONL
 * file uploaded with purpose `batch`, a batch over it, its output and error files) and
 * Anthropic's Message Batches (the requests in the body, JSONL results by `custom_id`).
 */
import type Anthropic from '@anthropic-ai/sdk'
import type OpenAI from 'openai'
import { pollUntil, type BatchItemOutcome, type BatchTransport } from './gatherer.js'

const OPENAI_RUNNING = new Set(['validating', 'in_progress', 'finalizing', 'cancelling'])

/**
 * One SDK request under a long-lived signal: the SDKs add an abort listener to the signal they
 * are given and keep it, so a batch polled a hundred times would pile up a hundred. Each request
 * gets its own signal, linked to the batch's only while it runs.
 */
async function linked<T>(signal: AbortSignal, request: (signal: AbortSignal) => Promise<T>): Promise<T> {
  if (signal.aborted) throw signal.reason
  const controller = new AbortController()
  const forward = () => controller.abort(signal.reason)
  signal.addEventListener('abort', forward, { once: true })
  try {
    return await request(controller.signal)
  } finally {
    signal.removeEventListener('abort', forward)
  }
}

/**
 * OpenAI's Batch API for one endpoint (`/v1/chat/completions` or `/v1/responses`).
 *
 * @example
 * const transport = openaiBatches(() => client, '/v1/chat/completions')
 */
export function openaiBatches(client: () => Promise<OpenAI>, endpoint: '/v1/chat/completions' | '/v1/responses'): BatchTransport {
  return {
    provider: 'OpenAI',
    async submit(items, { signal }) {
      const openai = await client()
      const { toFile } = await import('openai')
      const jsonl = `${items.map((i) => JSON.stringify({ custom_id: i.customId, method: 'POST', url: endpoint, body: i.body })).join('\n')}\n`
      const file = await linked(signal, async (s) => openai.files.create({ file: await toFile(Buffer.from(jsonl, 'utf8'), 'seqk-batch.jsonl'), purpose: 'batch' }, { signal: s }))
      return (await linked(signal, (s) => openai.batches.create({ input_file_id: file.id, endpoint, completion_window: '24h' }, { signal: s }))).id
    },
    async wait(batchId, { signal, pollMs, total, onProgress }) {
      const openai = await client()
      let batch: OpenAI.Batch
      try {
        batch = await pollUntil(async () => {
          const b = await linked(signal, (s) => openai.batches.retrieve(batchId, { signal: s }))
          const counts = b.request_counts
          onProgress({ batchId: b.id, provider: 'OpenAI', status: b.status === 'finalizing' ? 'finalizing' : OPENAI_RUNNING.has(b.status) ? 'in_progress' : 'ended', done: (counts?.completed ?? 0) + (counts?.failed ?? 0), total: counts?.total ?? total })
          return OPENAI_RUNNING.has(b.status) ? undefined : b
        }, pollMs, signal)
      } catch (error) {
        // Aborted (the test ended, or the deadline passed): the batch is cancelled, not left running.
        if (signal.aborted) await openai.batches.cancel(batchId).catch(() => undefined)
        throw error
      }
      if (batch.status === 'failed') {
        const why = batch.errors?.data?.map((e) => `${e.code ?? 'error'}${e.line ? ` (line ${e.line})` : ''}: ${e.message ?? ''}`).join('; ') ?? 'no reason given'
        throw new Error(`the OpenAI batch ${batch.id} failed: ${why}`)
      }
      const outcomes = new Map<string, BatchItemOutcome>()
      for (const fileId of [batch.output_file_id, batch.error_file_id]) {
        if (!fileId) continue
        const text = await linked(signal, async (s) => (await openai.files.content(fileId, { signal: s })).text())
        for (const line of text.split('\n')) {
          if (line.trim() === '') continue
          const entry = JSON.parse(line) as { custom_id: string; response: { status_code: number; body: unknown } | null; error: { code?: string | null; message?: string } | null }
          if (entry.response) outcomes.set(entry.custom_id, { kind: 'answered', status: entry.response.status_code, body: entry.response.body })
          else if (entry.error?.code === 'batch_expired') outcomes.set(entry.custom_id, { kind: 'expired' })
          else if (entry.error?.code === 'batch_cancelled') outcomes.set(entry.custom_id, { kind: 'cancelled' })
          else outcomes.set(entry.custom_id, { kind: 'answered', status: 500, body: { error: { message: entry.error?.message ?? 'no response' } } })
        }
      }
      // A request the files do not mention ended with its batch (the gatherer reads a missing one so).
      return outcomes
    },
  }
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
export function anthropicBatches(client: () => Promise<Anthropic>): BatchTransport {
  return {
    provider: 'Anthropic',
    async submit(items, { signal }) {
      const anthropic = await client()
      return (await linked(signal, (s) => anthropic.messages.batches.create({ requests: items.map((i) => ({ custom_id: i.customId, params: i.body as unknown as Anthropic.MessageCreateParamsNonStreaming })) }, { signal: s }))).id
    },
    async wait(batchId, { signal, pollMs, total, onProgress }) {
      const anthropic = await client()
      try {
        await pollUntil(async () => {
          const b = await linked(signal, (s) => anthropic.messages.batches.retrieve(batchId, {}, { signal: s }))
          const c = b.request_counts
          onProgress({ batchId: b.id, provider: 'Anthropic', status: b.processing_status === 'ended' ? 'ended' : 'in_progress', done: c.succeeded + c.errored + c.canceled + c.expired, total: Math.max(total, c.processing + c.succeeded + c.errored + c.canceled + c.expired) })
          return b.processing_status === 'ended' ? b : undefined
        }, pollMs, signal)
      } catch (error) {
        if (signal.aborted) await anthropic.messages.batches.cancel(batchId).catch(() => undefined)
        throw error
      }
      return linked(signal, async (s) => {
        const outcomes = new Map<string, BatchItemOutcome>()
        for await (const entry of await anthropic.messages.batches.results(batchId, {}, { signal: s })) {
          const r = entry.result
          if (r.type === 'succeeded') outcomes.set(entry.custom_id, { kind: 'answered', status: 200, body: r.message })
          else if (r.type === 'errored') outcomes.set(entry.custom_id, { kind: 'answered', status: ANTHROPIC_STATUS[r.error.error.type] ?? 500, body: r.error })
          else outcomes.set(entry.custom_id, { kind: r.type === 'expired' ? 'expired' : 'cancelled' })
        }
        return outcomes
      })
    },
  }
}
