// The batch APIs of the test server, driven by the real SDKs over real sockets: OpenAI's files +
// batches (upload, create, poll through in_progress → finalizing → completed, output and error
// files) and Anthropic's Message Batches (create, poll to ended, JSONL results), with per-request
// failures, a malformed input file, expiry and cancel.
import Anthropic from '@anthropic-ai/sdk'
import OpenAI, { toFile } from 'openai'
import { afterEach, describe, expect, it } from 'vitest'
import { lastUserMessage } from './responders.js'
import { startTestServer, type TestServer } from './index.js'

const clientOptions = { apiKey: 'test-key', maxRetries: 0, timeout: 5000, logLevel: 'off' } as const
let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function start(options: Parameters<typeof startTestServer>[0] = {}) {
  server = await startTestServer({ responder: (r) => `answer to ${lastUserMessage(r)}`, ...options })
  return {
    server,
    openai: new OpenAI({ ...clientOptions, baseURL: server.openaiBaseURL }),
    anthropic: new Anthropic({ ...clientOptions, baseURL: server.anthropicBaseURL }),
  }
}

const chatLine = (id: string, question: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    custom_id: id,
    method: 'POST',
    url: '/v1/chat/completions',
    body: { model: 'gpt-test', messages: [{ role: 'user', content: question }], ...extra },
  })

async function upload(openai: OpenAI, lines: string[]) {
  return openai.files.create({
    file: await toFile(Buffer.from(`${lines.join('\n')}\n`), 'batch.jsonl'),
    purpose: 'batch',
  })
}

/** Polls until the batch leaves the in-flight states; returns every status seen. */
async function pollOpenAi(openai: OpenAI, id: string) {
  const seen: string[] = []
  for (let i = 0; i < 200; i++) {
    const batch = await openai.batches.retrieve(id)
    if (seen.at(-1) !== batch.status) seen.push(batch.status)
    if (!['validating', 'in_progress', 'finalizing', 'cancelling'].includes(batch.status)) return { batch, seen }
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error(`batch ${id} never ended`)
}

const jsonl = async (openai: OpenAI, fileId: string | null | undefined) =>
  fileId
    ? (await (await openai.files.content(fileId)).text())
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
    : []

describe('OpenAI Batches on the test server', () => {
  it('runs an uploaded file of requests: in_progress, finalizing, completed, one output line per request', async () => {
    // Long enough that the first poll sees the batch in progress on a loaded machine too.
    const { openai, server } = await start({ batches: { delayMs: 600 } })
    const file = await upload(openai, [chatLine('a', 'one?'), chatLine('b', 'two?'), chatLine('c', 'three?')])
    const created = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    })
    expect(created.status).toBe('validating')
    const { batch, seen } = await pollOpenAi(openai, created.id)
    expect(seen).toEqual(['in_progress', 'finalizing', 'completed'])
    expect(batch.request_counts).toEqual({ total: 3, completed: 3, failed: 0 })
    expect(batch.error_file_id).toBeNull()
    const out = await jsonl(openai, batch.output_file_id)
    expect(out.map((l) => [l.custom_id, l.response.status_code, l.response.body.choices[0].message.content])).toEqual([
      ['a', 200, 'answer to one?'],
      ['b', 200, 'answer to two?'],
      ['c', 200, 'answer to three?'],
    ])
    expect(out[0].response.body.usage.prompt_tokens).toBeGreaterThan(0)
    expect(server.requests.map((r) => r.batch)).toEqual(
      ['a', 'b', 'c'].map((customId) => ({ id: created.id, customId })),
    )
    expect(server.batches()).toEqual([
      { id: created.id, provider: 'openai', status: 'completed', customIds: ['a', 'b', 'c'] },
    ])
  })

  it('puts a request that failed (an injected 500, an invalid body) in the error file, and answers the rest', async () => {
    const { openai, server } = await start()
    server.injectFaults({ kind: 'status', status: 500, match: (r) => r.batch?.customId === 'b' })
    const file = await upload(openai, [
      chatLine('a', 'one?'),
      chatLine('b', 'two?'),
      JSON.stringify({ custom_id: 'c', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-test' } }),
    ])
    const created = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    })
    const { batch } = await pollOpenAi(openai, created.id)
    expect(batch.status).toBe('completed')
    expect(batch.request_counts).toEqual({ total: 3, completed: 1, failed: 2 })
    expect((await jsonl(openai, batch.output_file_id)).map((l) => l.custom_id)).toEqual(['a'])
    const errors = await jsonl(openai, batch.error_file_id)
    expect(errors.map((l) => [l.custom_id, l.response.status_code])).toEqual([
      ['b', 500],
      ['c', 400],
    ])
    expect(errors[1].response.body.error.message).toMatch(/messages/)
  })

  it('fails a batch whose input file is malformed, naming the line', async () => {
    const { openai } = await start()
    const file = await upload(openai, [chatLine('a', 'one?'), '{"custom_id": "b"}', chatLine('a', 'again?')])
    const created = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    })
    expect(created.status).toBe('failed')
    expect(created.errors?.data?.map((e) => [e.code, e.line])).toEqual([
      ['invalid_request', 2],
      ['duplicate_custom_id', 3],
    ])
  })

  it('expires a batch that does not end in time: answered requests in the output, the others batch_expired', async () => {
    const { openai, server } = await start({ batches: { expireAfterMs: 150, concurrency: 1 } })
    server.respondWith((r) => (lastUserMessage(r) === 'slow?' ? { text: 'late', delayMs: 5000 } : 'quick'))
    const file = await upload(openai, [chatLine('a', 'fast?'), chatLine('b', 'slow?'), chatLine('c', 'fast?')])
    const created = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    })
    const { batch } = await pollOpenAi(openai, created.id)
    expect(batch.status).toBe('expired')
    expect((await jsonl(openai, batch.output_file_id)).map((l) => l.custom_id)).toEqual(['a'])
    expect((await jsonl(openai, batch.error_file_id)).map((l) => [l.custom_id, l.error.code])).toEqual([
      ['b', 'batch_expired'],
      ['c', 'batch_expired'],
    ])
  })

  it('cancels a batch in progress: cancelled, the unanswered requests batch_cancelled', async () => {
    const { openai, server } = await start({ batches: { concurrency: 1 } })
    server.respondWith((r) => (lastUserMessage(r) === 'slow?' ? { text: 'late', delayMs: 5000 } : 'quick'))
    const file = await upload(openai, [chatLine('a', 'fast?'), chatLine('b', 'slow?')])
    const created = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    })
    await new Promise((r) => setTimeout(r, 50))
    const cancelled = await openai.batches.cancel(created.id)
    expect(['cancelling', 'cancelled']).toContain(cancelled.status)
    const { batch } = await pollOpenAi(openai, created.id)
    expect(batch.status).toBe('cancelled')
    expect((await jsonl(openai, batch.error_file_id)).map((l) => [l.custom_id, l.error.code])).toEqual([
      ['b', 'batch_cancelled'],
    ])
  })

  it('speaks the Responses endpoint too, and refuses an unknown batch or file', async () => {
    const { openai } = await start()
    const file = await upload(openai, [
      JSON.stringify({
        custom_id: 'r',
        method: 'POST',
        url: '/v1/responses',
        body: { model: 'gpt-test', input: 'hello?' },
      }),
    ])
    const created = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/responses',
      completion_window: '24h',
    })
    const { batch } = await pollOpenAi(openai, created.id)
    const [line] = await jsonl(openai, batch.output_file_id)
    expect(line.response.body.output[0].content[0].text).toBe('answer to hello?')
    await expect(openai.batches.retrieve('batch_nope')).rejects.toMatchObject({ status: 404 })
    await expect(
      openai.batches.create({ input_file_id: 'file-nope', endpoint: '/v1/chat/completions', completion_window: '24h' }),
    ).rejects.toMatchObject({ status: 404 })
  })
})

describe('Anthropic Message Batches on the test server', () => {
  const params = (question: string) => ({
    model: 'claude-test',
    max_tokens: 100,
    messages: [{ role: 'user' as const, content: question }],
  })

  async function pollAnthropic(anthropic: Anthropic, id: string) {
    for (let i = 0; i < 200; i++) {
      const batch = await anthropic.messages.batches.retrieve(id)
      if (batch.processing_status === 'ended') return batch
      await new Promise((r) => setTimeout(r, 10))
    }
    throw new Error(`batch ${id} never ended`)
  }

  async function results(anthropic: Anthropic, id: string) {
    const out: { custom_id: string; type: string; text?: string }[] = []
    for await (const r of await anthropic.messages.batches.results(id)) {
      const first = r.result.type === 'succeeded' ? r.result.message.content[0] : undefined
      out.push({ custom_id: r.custom_id, type: r.result.type, ...(first?.type === 'text' ? { text: first.text } : {}) })
    }
    return out
  }

  it('runs the requests and streams the results by custom_id, with request counts', async () => {
    const { anthropic } = await start({ batches: { delayMs: 40 } })
    const created = await anthropic.messages.batches.create({
      requests: [
        { custom_id: 'a', params: params('one?') },
        { custom_id: 'b', params: params('two?') },
      ],
    })
    expect(created.processing_status).toBe('in_progress')
    const batch = await pollAnthropic(anthropic, created.id)
    expect(batch.request_counts).toEqual({ processing: 0, succeeded: 2, errored: 0, canceled: 0, expired: 0 })
    expect(batch.results_url).toMatch(/\/v1\/messages\/batches\/msgbatch_test_\d+\/results$/)
    expect(await results(anthropic, created.id)).toEqual([
      { custom_id: 'a', type: 'succeeded', text: 'answer to one?' },
      { custom_id: 'b', type: 'succeeded', text: 'answer to two?' },
    ])
  })

  it('reports an errored request (an injected 529), an expired one and a cancelled batch', async () => {
    const { anthropic, server } = await start({ batches: { expireAfterMs: 150, concurrency: 1 } })
    server.injectFaults({ kind: 'status', status: 529, match: (r) => r.batch?.customId === 'b' })
    server.respondWith((r) => (lastUserMessage(r) === 'slow?' ? { text: 'late', delayMs: 5000 } : 'quick'))
    const created = await anthropic.messages.batches.create({
      requests: [
        { custom_id: 'a', params: params('fast?') },
        { custom_id: 'b', params: params('fast?') },
        { custom_id: 'c', params: params('slow?') },
      ],
    })
    await pollAnthropic(anthropic, created.id)
    expect((await results(anthropic, created.id)).map((r) => [r.custom_id, r.type])).toEqual([
      ['a', 'succeeded'],
      ['b', 'errored'],
      ['c', 'expired'],
    ])

    const second = await anthropic.messages.batches.create({ requests: [{ custom_id: 'x', params: params('slow?') }] })
    const cancelling = await anthropic.messages.batches.cancel(second.id)
    expect(cancelling.cancel_initiated_at).not.toBeNull()
    await pollAnthropic(anthropic, second.id)
    expect((await results(anthropic, second.id)).map((r) => r.type)).toEqual(['canceled'])
  })

  it('refuses results before the batch ended, and a batch with duplicate custom ids', async () => {
    const { anthropic, server } = await start({ batches: { delayMs: 5000 } })
    const created = await anthropic.messages.batches.create({ requests: [{ custom_id: 'a', params: params('one?') }] })
    await expect(anthropic.messages.batches.results(created.id)).rejects.toThrow(/results_url|has it finished/i)
    await expect(
      anthropic.messages.batches.create({
        requests: [
          { custom_id: 'a', params: params('1') },
          { custom_id: 'a', params: params('2') },
        ],
      }),
    ).rejects.toMatchObject({ status: 400 })
    expect(server.batches()[0]).toMatchObject({ provider: 'anthropic', status: 'in_progress' })
  })
})
