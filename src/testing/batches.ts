// The providers' batch APIs, as the test server speaks them: OpenAI's Files + Batches (a JSONL
// file of requests uploaded to /v1/files, a batch over it, polled until its output and error
// files are ready) and Anthropic's Message Batches (requests in the body, polled until
// `ended`, results as JSONL). Each request of a batch is answered exactly as the direct API
// would answer it (the same responder, faults and usage), so a batched run and a direct run of
// a scripted server give the same answers.
import { z } from 'zod'
import { describeZodError } from '../core/zod-errors.js'
import type { WireProtocol } from './wire/shared.js'

/** How batches behave on the test server. */
export interface BatchOptions {
  /** A batch reports in progress for at least this long after it was created (default 0). */
  delayMs?: number
  /** A batch not ended by then expires: requests not answered yet are `expired` (default: never). */
  expireAfterMs?: number
  /** Requests of one batch answered at once (default 4). */
  concurrency?: number
  /**
   * Rewrites a batch's results before a client downloads them (OpenAI's output and error files,
   * Anthropic's results), one JSONL line each: return the lines to serve. For faults a real
   * provider may show: a malformed line, a missing one.
   *
   * @example
   * startTestServer({ batches: { rewriteResults: (lines) => [lines[0]!.slice(0, 20), ...lines.slice(2)] } })
   */
  rewriteResults?: (lines: string[]) => string[]
  /** The next this many status polls (GET of a batch) send their headers and then stall, never the body (default 0). */
  stallPolls?: number
}

export const BatchOptionsSchema = z.strictObject({
  delayMs: z.number().int().nonnegative().optional(),
  expireAfterMs: z.number().int().positive().optional(),
  concurrency: z.number().int().positive().max(64).optional(),
  rewriteResults: z
    .custom<(lines: string[]) => string[]>(
      (value) => typeof value === 'function',
      'expected a function from lines to lines',
    )
    .optional(),
  stallPolls: z.number().int().nonnegative().optional(),
})

/** One request answered for a batch: what the direct API would have returned. */
export interface BatchAnswer {
  status: number
  body: unknown
  requestId: string
}

/** Answers one request of a batch through the server's normal path (responder, faults, usage). */
export type ServeOne = (
  wire: WireProtocol,
  body: unknown,
  batch: { id: string; customId: string; signal: AbortSignal },
) => Promise<BatchAnswer>

/** A routed response: JSON, raw text (a file's content, JSONL results), or a stall (headers, then nothing). */
export type BatchResponse =
  { status: number; json: unknown } | { status: number; text: string; contentType: string } | { stall: true }

/** What a test can see of the batches a server received. */
export interface TestServerBatch {
  id: string
  provider: 'openai' | 'anthropic'
  status: string
  customIds: string[]
}

type Outcome = { kind: 'answered'; answer: BatchAnswer } | { kind: 'expired' } | { kind: 'cancelled' }

interface Batch {
  id: string
  provider: 'openai' | 'anthropic'
  createdAt: number
  endpoint: string
  inputFileId: string | null
  metadata: unknown
  items: { customId: string; body: unknown }[]
  outcomes: (Outcome | undefined)[]
  /** Set when every item has an outcome. */
  doneAt: number | null
  cancelAt: number | null
  expiredAt: number | null
  /** OpenAI: reported `finalizing` once before `completed`. */
  finalizingSeen: boolean
  failed: { code: string; message: string; line: number | null }[] | null
  outputFileId: string | null
  errorFileId: string | null
  controller: AbortController
}

interface StoredFile {
  id: string
  filename: string
  purpose: string
  bytes: number
  createdAt: number
  content: string
}

const OpenAiBatchBody = z.object({
  input_file_id: z.string().min(1),
  endpoint: z.enum(['/v1/chat/completions', '/v1/responses']),
  completion_window: z.literal('24h'),
  metadata: z.record(z.string(), z.string()).nullable().optional(),
})

const OpenAiBatchLine = z.object({
  custom_id: z.string().min(1),
  method: z.literal('POST'),
  url: z.string(),
  body: z.record(z.string(), z.unknown()),
})

const AnthropicBatchBody = z.object({
  requests: z
    .array(z.object({ custom_id: z.string().min(1).max(64), params: z.record(z.string(), z.unknown()) }))
    .min(1),
})

const seconds = (ms: number) => Math.floor(ms / 1000)

/**
 * The batch endpoints of one test server. `route` answers a request when its path is a batch
 * path (undefined otherwise, for the server's other routes).
 *
 * @example
 * const batches = new BatchApi({ delayMs: 50 }, serveOne, { openai: [openaiChat, openaiResponses], anthropic: anthropicMessages })
 * await batches.route('GET', '/v1/batches/batch_test_1', '', undefined, baseUrl)
 */
export class BatchApi {
  private readonly files = new Map<string, StoredFile>()
  private readonly batches = new Map<string, Batch>()
  private serial = 0
  private stallsLeft: number

  constructor(
    private readonly options: BatchOptions,
    private readonly serveOne: ServeOne,
    private readonly wires: { openai: readonly WireProtocol[]; anthropic: WireProtocol },
    private readonly now: () => number = Date.now,
  ) {
    this.stallsLeft = options.stallPolls ?? 0
  }

  /** The batches received so far, for assertions. */
  list(): TestServerBatch[] {
    return [...this.batches.values()].map((b) => ({
      id: b.id,
      provider: b.provider,
      status: b.provider === 'openai' ? this.openaiStatus(b, false) : this.anthropicStatus(b),
      customIds: b.items.map((i) => i.customId),
    }))
  }

  /** Stops every batch's work (the server is closing). */
  close(): void {
    for (const b of this.batches.values()) b.controller.abort()
  }

  /** Clears files and batches (the server's `reset`). */
  clear(): void {
    this.close()
    this.stallsLeft = this.options.stallPolls ?? 0
    this.files.clear()
    this.batches.clear()
  }

  async route(
    method: string,
    path: string,
    raw: string,
    contentType: string | undefined,
    baseUrl: string,
  ): Promise<BatchResponse | undefined> {
    let m: RegExpExecArray | null
    if (path === '/v1/files' && method === 'POST') return this.uploadFile(raw, contentType)
    if ((m = /^\/v1\/files\/([^/]+)$/.exec(path)) && method === 'GET') return this.fileObject(m[1]!)
    if ((m = /^\/v1\/files\/([^/]+)\/content$/.exec(path)) && method === 'GET') {
      const file = this.files.get(m[1]!)
      if (!file) return notFound('openai', `No such File object: ${m[1]}`)
      return {
        status: 200,
        text: file.purpose === 'batch_output' ? this.rewritten(file.content) : file.content,
        contentType: 'application/octet-stream',
      }
    }
    // A status poll that stalls after its headers (batch objects, not their results).
    if (method === 'GET' && /^\/v1\/(batches|messages\/batches)\/[^/]+$/.test(path) && this.stallsLeft > 0) {
      this.stallsLeft--
      return { stall: true }
    }
    if (path === '/v1/batches' && method === 'POST') return this.createOpenAi(raw)
    if ((m = /^\/v1\/batches\/([^/]+)$/.exec(path)) && method === 'GET')
      return this.withBatch('openai', m[1]!, (b) => ({ status: 200, json: this.openaiObject(b) }))
    if ((m = /^\/v1\/batches\/([^/]+)\/cancel$/.exec(path)) && method === 'POST')
      return this.withBatch('openai', m[1]!, (b) => this.cancel(b, () => this.openaiObject(b)))
    if (path === '/v1/messages/batches' && method === 'POST') return this.createAnthropic(raw)
    if ((m = /^\/v1\/messages\/batches\/([^/]+)$/.exec(path)) && method === 'GET')
      return this.withBatch('anthropic', m[1]!, (b) => ({ status: 200, json: this.anthropicObject(b, baseUrl) }))
    if ((m = /^\/v1\/messages\/batches\/([^/]+)\/cancel$/.exec(path)) && method === 'POST')
      return this.withBatch('anthropic', m[1]!, (b) => this.cancel(b, () => this.anthropicObject(b, baseUrl)))
    if ((m = /^\/v1\/messages\/batches\/([^/]+)\/results$/.exec(path)) && method === 'GET')
      return this.withBatch('anthropic', m[1]!, (b) => this.anthropicResults(b))
    return undefined
  }

  private withBatch(provider: Batch['provider'], id: string, then: (b: Batch) => BatchResponse): BatchResponse {
    const batch = this.batches.get(id)
    if (!batch || batch.provider !== provider) return notFound(provider, `No such batch: ${id}`)
    this.expireIfDue(batch)
    return then(batch)
  }

  // ---- files (OpenAI) ----

  private async uploadFile(raw: string, contentType: string | undefined): Promise<BatchResponse> {
    if (!/^multipart\/form-data\s*;.*boundary=/i.test(contentType ?? ''))
      return invalid(
        'openai',
        'expected a multipart/form-data body with `purpose` and `file` (upload with client.files.create)',
      )
    // The platform's own multipart parser (undici's), not one of ours.
    let form: FormData
    try {
      form = await new Response(raw, { headers: { 'content-type': contentType! } }).formData()
    } catch (error) {
      return invalid(
        'openai',
        `the multipart body could not be read (${error instanceof Error ? error.message : String(error)})`,
      )
    }
    const purpose = form.get('purpose')
    const file = form.get('file')
    if (!(file instanceof Blob)) return invalid('openai', "missing the multipart field 'file'", 'file')
    if (purpose !== 'batch')
      return invalid(
        'openai',
        `this test server stores files for purpose 'batch' only, got ${JSON.stringify(purpose)}`,
        'purpose',
      )
    const content = await file.text()
    const id = `file-test_${++this.serial}`
    const stored: StoredFile = {
      id,
      filename: file instanceof File ? file.name : 'upload.jsonl',
      purpose,
      bytes: Buffer.byteLength(content),
      createdAt: this.now(),
      content,
    }
    this.files.set(id, stored)
    return { status: 200, json: fileJson(stored) }
  }

  private fileObject(id: string): BatchResponse {
    const file = this.files.get(id)
    return file ? { status: 200, json: fileJson(file) } : notFound('openai', `No such File object: ${id}`)
  }

  private storeOutput(batchId: string, kind: 'output' | 'error', lines: string[]): string | null {
    if (lines.length === 0) return null
    const id = `file-test_${++this.serial}`
    const content = `${lines.join('\n')}\n`
    this.files.set(id, {
      id,
      filename: `${batchId}_${kind}.jsonl`,
      purpose: 'batch_output',
      bytes: Buffer.byteLength(content),
      createdAt: this.now(),
      content,
    })
    return id
  }

  // ---- creating and running ----

  private createOpenAi(raw: string): BatchResponse {
    const parsed = OpenAiBatchBody.safeParse(parseJson(raw))
    if (!parsed.success) return invalid('openai', `batches.create: ${describeZodError(parsed.error)}`)
    const file = this.files.get(parsed.data.input_file_id)
    if (!file) return notFound('openai', `No such File object: ${parsed.data.input_file_id}`)
    const batch = this.newBatch('openai', parsed.data.endpoint, file.id, parsed.data.metadata ?? null)
    // As the real API does, a malformed input file fails the whole batch (status `failed`, errors by line).
    const problems: Batch['failed'] = []
    const seen = new Set<string>()
    file.content.split('\n').forEach((text, i) => {
      if (text.trim() === '') return
      const line = OpenAiBatchLine.safeParse(parseJson(text))
      if (!line.success)
        return problems.push({ code: 'invalid_request', message: describeZodError(line.error), line: i + 1 })
      if (line.data.url !== parsed.data.endpoint)
        return problems.push({
          code: 'mismatched_endpoint',
          message: `line url ${line.data.url} is not the batch's endpoint ${parsed.data.endpoint}`,
          line: i + 1,
        })
      if (seen.has(line.data.custom_id))
        return problems.push({
          code: 'duplicate_custom_id',
          message: `custom_id ${line.data.custom_id} appears more than once`,
          line: i + 1,
        })
      seen.add(line.data.custom_id)
      batch.items.push({ customId: line.data.custom_id, body: line.data.body })
    })
    if (batch.items.length === 0 && problems.length === 0)
      problems.push({ code: 'empty_file', message: 'the input file has no requests', line: null })
    if (problems.length > 0) batch.failed = problems
    else
      this.run(
        batch,
        this.wires.openai.find((w) => w.path === parsed.data.endpoint)!,
      )
    return { status: 200, json: this.openaiObject(batch, true) }
  }

  private createAnthropic(raw: string): BatchResponse {
    const parsed = AnthropicBatchBody.safeParse(parseJson(raw))
    if (!parsed.success) return invalid('anthropic', `messages.batches.create: ${describeZodError(parsed.error)}`)
    const ids = parsed.data.requests.map((r) => r.custom_id)
    const duplicate = ids.find((id, i) => ids.indexOf(id) !== i)
    if (duplicate) return invalid('anthropic', `requests: custom_id ${duplicate} appears more than once`)
    const batch = this.newBatch('anthropic', '/v1/messages', null, null)
    batch.items.push(...parsed.data.requests.map((r) => ({ customId: r.custom_id, body: r.params })))
    this.run(batch, this.wires.anthropic)
    return { status: 200, json: this.anthropicObject(batch, '') }
  }

  private newBatch(
    provider: Batch['provider'],
    endpoint: string,
    inputFileId: string | null,
    metadata: unknown,
  ): Batch {
    const id = provider === 'openai' ? `batch_test_${++this.serial}` : `msgbatch_test_${++this.serial}`
    const batch: Batch = {
      id,
      provider,
      createdAt: this.now(),
      endpoint,
      inputFileId,
      metadata,
      items: [],
      outcomes: [],
      doneAt: null,
      cancelAt: null,
      expiredAt: null,
      finalizingSeen: false,
      failed: null,
      outputFileId: null,
      errorFileId: null,
      controller: new AbortController(),
    }
    this.batches.set(id, batch)
    return batch
  }

  /** Answers the batch's requests in the background, a few at a time, in order of submission. */
  private run(batch: Batch, wire: WireProtocol): void {
    let next = 0
    const worker = async (): Promise<void> => {
      while (next < batch.items.length && !batch.controller.signal.aborted) {
        const i = next++
        const item = batch.items[i]!
        const answer = await this.serveOne(wire, item.body, {
          id: batch.id,
          customId: item.customId,
          signal: batch.controller.signal,
        }).catch((error: unknown) => ({
          status: 500,
          body: wire.errorBody(
            500,
            `the test server failed: ${error instanceof Error ? error.message : String(error)}`,
          ),
          requestId: 'req_test_batch',
        }))
        if (batch.controller.signal.aborted) return
        batch.outcomes[i] = { kind: 'answered', answer }
      }
    }
    const workers = Array.from(
      { length: Math.min(this.options.concurrency ?? 4, Math.max(1, batch.items.length)) },
      worker,
    )
    void Promise.all(workers).then(() => this.settle(batch))
    if (this.options.expireAfterMs !== undefined) {
      setTimeout(() => this.expireIfDue(batch), this.options.expireAfterMs).unref()
    }
  }

  /** Gives every request without an outcome the one the batch's end gives it (cancelled or expired). */
  private settle(batch: Batch): void {
    if (batch.doneAt !== null) return
    const filler: Outcome | undefined =
      batch.expiredAt !== null ? { kind: 'expired' } : batch.cancelAt !== null ? { kind: 'cancelled' } : undefined
    if (!filler && batch.outcomes.filter(Boolean).length < batch.items.length) return
    for (let i = 0; i < batch.items.length; i++) batch.outcomes[i] ??= filler
    batch.doneAt = this.now()
    if (batch.provider === 'openai') this.writeOpenAiFiles(batch)
  }

  private expireIfDue(batch: Batch): void {
    const limit = this.options.expireAfterMs
    if (limit === undefined || batch.doneAt !== null || batch.failed || this.now() - batch.createdAt < limit) return
    batch.expiredAt = this.now()
    batch.controller.abort()
    this.settle(batch)
  }

  private cancel(batch: Batch, then: () => unknown): BatchResponse {
    // Cancelling a batch that has not ended keeps what was answered and ends the rest.
    if (!this.ended(batch) && !batch.failed && batch.cancelAt === null) {
      batch.cancelAt = this.now()
      batch.controller.abort()
      if (batch.doneAt === null) this.settle(batch)
    }
    return { status: 200, json: then() }
  }

  /** Whether the batch has ended, as a client may see it: every request settled and the delay passed. */
  private ended(batch: Batch): boolean {
    if (batch.doneAt === null) return false
    if (batch.cancelAt !== null || batch.expiredAt !== null) return true
    return this.now() - batch.createdAt >= (this.options.delayMs ?? 0)
  }

  // ---- OpenAI shapes ----

  private openaiStatus(b: Batch, creating: boolean): string {
    if (b.failed) return 'failed'
    if (creating) return 'validating'
    if (b.expiredAt !== null) return 'expired'
    if (b.cancelAt !== null) return b.doneAt === null ? 'cancelling' : 'cancelled'
    if (!this.ended(b)) return 'in_progress'
    return b.finalizingSeen ? 'completed' : 'finalizing'
  }

  private openaiObject(b: Batch, creating = false): unknown {
    const status = this.openaiStatus(b, creating)
    // A client polling sees `finalizing` once, then `completed`.
    if (status === 'finalizing') b.finalizingSeen = true
    const answered = b.outcomes.filter((o): o is Extract<Outcome, { kind: 'answered' }> => o?.kind === 'answered')
    const completed = answered.filter((o) => o.answer.status < 300).length
    const finished = status === 'completed' || status === 'expired' || status === 'cancelled'
    return {
      id: b.id,
      object: 'batch',
      endpoint: b.endpoint,
      errors: b.failed
        ? {
            object: 'list',
            data: b.failed.map((p) => ({ code: p.code, message: p.message, param: null, line: p.line })),
          }
        : null,
      input_file_id: b.inputFileId,
      completion_window: '24h',
      status,
      output_file_id: finished ? b.outputFileId : null,
      error_file_id: finished ? b.errorFileId : null,
      created_at: seconds(b.createdAt),
      in_progress_at: creating || b.failed ? null : seconds(b.createdAt),
      expires_at: seconds(b.createdAt) + 86_400,
      finalizing_at: b.doneAt !== null && !b.failed ? seconds(b.doneAt) : null,
      completed_at: status === 'completed' ? seconds(b.doneAt!) : null,
      failed_at: b.failed ? seconds(b.createdAt) : null,
      expired_at: b.expiredAt !== null ? seconds(b.expiredAt) : null,
      cancelling_at: b.cancelAt !== null ? seconds(b.cancelAt) : null,
      cancelled_at: status === 'cancelled' ? seconds(b.doneAt!) : null,
      request_counts: {
        total: b.items.length,
        completed,
        failed: b.doneAt === null ? answered.length - completed : b.items.length - completed,
      },
      metadata: b.metadata ?? null,
    }
  }

  private writeOpenAiFiles(b: Batch): void {
    const out: string[] = []
    const errors: string[] = []
    b.items.forEach((item, i) => {
      const o = b.outcomes[i]!
      const id = `batch_req_${b.id}_${i + 1}`
      if (o.kind === 'answered') {
        const line = JSON.stringify({
          id,
          custom_id: item.customId,
          response: { status_code: o.answer.status, request_id: o.answer.requestId, body: o.answer.body },
          error: null,
        })
        ;(o.answer.status < 300 ? out : errors).push(line)
      } else {
        const code = o.kind === 'expired' ? 'batch_expired' : 'batch_cancelled'
        errors.push(
          JSON.stringify({
            id,
            custom_id: item.customId,
            response: null,
            error: {
              code,
              message:
                o.kind === 'expired'
                  ? 'This request could not be executed before the completion window expired.'
                  : 'This request was not executed: the batch was cancelled.',
            },
          }),
        )
      }
    })
    b.outputFileId = this.storeOutput(b.id, 'output', out)
    b.errorFileId = this.storeOutput(b.id, 'error', errors)
  }

  // ---- Anthropic shapes ----

  private anthropicStatus(b: Batch): string {
    if (this.ended(b)) return 'ended'
    return b.cancelAt !== null ? 'canceling' : 'in_progress'
  }

  private anthropicObject(b: Batch, baseUrl: string): unknown {
    const status = this.anthropicStatus(b)
    const counts = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 }
    b.items.forEach((_, i) => {
      const o = b.outcomes[i]
      if (!o || status !== 'ended') counts.processing++
      else if (o.kind === 'expired') counts.expired++
      else if (o.kind === 'cancelled') counts.canceled++
      else if (o.answer.status < 300) counts.succeeded++
      else counts.errored++
    })
    return {
      id: b.id,
      type: 'message_batch',
      processing_status: status,
      request_counts: counts,
      ended_at: status === 'ended' ? new Date(b.doneAt!).toISOString() : null,
      created_at: new Date(b.createdAt).toISOString(),
      expires_at: new Date(b.createdAt + 86_400_000).toISOString(),
      archived_at: null,
      cancel_initiated_at: b.cancelAt !== null ? new Date(b.cancelAt).toISOString() : null,
      results_url: status === 'ended' ? `${baseUrl}/v1/messages/batches/${b.id}/results` : null,
    }
  }

  private anthropicResults(b: Batch): BatchResponse {
    if (this.anthropicStatus(b) !== 'ended')
      return invalid(
        'anthropic',
        `Message Batch ${b.id} has not ended yet (processing_status ${this.anthropicStatus(b)})`,
      )
    const lines = b.items.map((item, i) => {
      const o = b.outcomes[i]!
      if (o.kind === 'expired') return { custom_id: item.customId, result: { type: 'expired' } }
      if (o.kind === 'cancelled') return { custom_id: item.customId, result: { type: 'canceled' } }
      if (o.answer.status < 300)
        return { custom_id: item.customId, result: { type: 'succeeded', message: o.answer.body } }
      const body = o.answer.body as { error?: unknown }
      return {
        custom_id: item.customId,
        result: { type: 'errored', error: { type: 'error', error: body.error ?? body } },
      }
    })
    return {
      status: 200,
      text: this.rewritten(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n`),
      contentType: 'application/binary',
    }
  }

  /** A results file's JSONL, through `rewriteResults` when set. */
  private rewritten(jsonl: string): string {
    const rewrite = this.options.rewriteResults
    if (!rewrite) return jsonl
    const lines = jsonl.split('\n').filter((l) => l !== '')
    return `${rewrite(lines).join('\n')}\n`
  }
}

function fileJson(f: StoredFile): unknown {
  return {
    id: f.id,
    object: 'file',
    bytes: f.bytes,
    created_at: seconds(f.createdAt),
    filename: f.filename,
    purpose: f.purpose,
    status: 'processed',
    expires_at: null,
    status_details: null,
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function invalid(provider: Batch['provider'], message: string, param?: string): BatchResponse {
  return provider === 'openai'
    ? {
        status: 400,
        json: {
          error: {
            message: `vitest-seqk test server: ${message}`,
            type: 'invalid_request_error',
            param: param ?? null,
            code: null,
          },
        },
      }
    : {
        status: 400,
        json: {
          type: 'error',
          error: { type: 'invalid_request_error', message: `vitest-seqk test server: ${message}` },
        },
      }
}

function notFound(provider: Batch['provider'], message: string): BatchResponse {
  return provider === 'openai'
    ? { status: 404, json: { error: { message, type: 'invalid_request_error', param: null, code: null } } }
    : { status: 404, json: { type: 'error', error: { type: 'not_found_error', message } } }
}
