import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ChatModel, ChatRequest } from './chat-model.js'
import { keyDifferences, resolveCassette, withCassette } from './cassette.js'
import { actors } from './index.js'
import { registerSecret } from './redact.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function counting(): ChatModel & { calls: number } {
  const model = {
    id: 'fake:m',
    descriptor: { provider: 'fake', model: 'm', params: { temperature: 0.7 } },
    calls: 0,
    async chat(request: ChatRequest) {
      model.calls++
      return {
        text: `answer to ${request.messages.at(-1)!.content} #${model.calls}`,
        usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 2, cacheWriteTokens: 0 },
        latencyMs: 123,
        finishReason: 'stop' as const,
        costUsd: 0.01,
      }
    },
  }
  return model
}

const request = (content: string, attempt = 1, repeat = 0): ChatRequest => ({
  messages: [{ role: 'user', content }],
  context: { role: 'actor', taskId: 't', attempt, repeat, protocol: 'sequential' },
})

describe('withCassette', () => {
  it('records, then replays the same answer with its nominal usage and cost, marked replayed, without calling the model', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seqk-cassette-'))
    dirs.push(dir)
    const live = counting()
    const recorded = await withCassette(live, { mode: 'record', dir }).chat(request('hi'))
    expect(live.calls).toBe(1)
    const offline = counting()
    const replayed = await withCassette(offline, { mode: 'replay', dir }).chat(request('hi'))
    expect(offline.calls).toBe(0)
    expect(replayed).toEqual({ ...recorded, replayed: true })
  })

  it('keeps repeats and attempts apart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seqk-cassette-'))
    dirs.push(dir)
    const recorder = withCassette(counting(), { mode: 'record', dir })
    const a = await recorder.chat(request('hi', 1, 0))
    const b = await recorder.chat(request('hi', 1, 1))
    const c = await recorder.chat(request('hi', 2, 0))
    const replayer = withCassette(counting(), { mode: 'replay', dir })
    expect((await replayer.chat(request('hi', 1, 1))).text).toBe(b.text)
    expect((await replayer.chat(request('hi', 2, 0))).text).toBe(c.text)
    expect((await replayer.chat(request('hi', 1, 0))).text).toBe(a.text)
    expect(new Set([a.text, b.text, c.text]).size).toBe(3)
  })

  it('a replay miss says which part of the key differs from the nearest recording', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seqk-cassette-'))
    dirs.push(dir)
    await withCassette(counting(), { mode: 'record', dir }).chat(request('write a sort function'))
    const replayer = withCassette(counting(), { mode: 'replay', dir })
    await expect(replayer.chat(request('write a sort function', 2))).rejects.toThrow(
      /nearest recording differs in attempt \(recorded 1, now 2\)/,
    )
    await expect(replayer.chat(request('write a search function'))).rejects.toThrow(
      /messages\[0\] \(recorded user "write a sort function", now user "write a search function"\)/,
    )
    const empty = mkdtempSync(join(tmpdir(), 'seqk-cassette-'))
    dirs.push(empty)
    // Nothing recorded of this model at all: said once, where it is declared, not on every call.
    expect(() => withCassette(counting(), { mode: 'replay', dir: empty })).toThrow(
      /cassette replay \(SEQK_CASSETTE=replay or cassette\.mode\), but .* holds no recording of this model .*: record it first \(SEQK_CASSETTE=record\)/,
    )
  })

  it('auto replays what is recorded and records the rest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seqk-cassette-'))
    dirs.push(dir)
    const live = counting()
    const auto = withCassette(live, { mode: 'auto', dir })
    await auto.chat(request('one'))
    await auto.chat(request('one'))
    await auto.chat(request('two'))
    expect(live.calls).toBe(2)
  })

  it('writes no key or header, and off is the model itself', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seqk-cassette-'))
    dirs.push(dir)
    await withCassette(counting(), { mode: 'record', dir }).chat(request('hi'))
    const folder = join(dir, 'fake', 'm')
    const text = readdirSync(folder)
      .map((f) => readFileSync(join(folder, f), 'utf8'))
      .join('')
    expect(text).not.toMatch(/api[-_]?key|authorization|bearer/i)
    const model = counting()
    expect(withCassette(model, { mode: 'off' })).toBe(model)
  })

  it('rejects an unknown mode from the environment', () => {
    const saved = process.env.SEQK_CASSETTE
    process.env.SEQK_CASSETTE = 'rec'
    try {
      expect(() => resolveCassette()).toThrow(
        'cassette mode "rec" is not one of off, record, replay, auto (check SEQK_CASSETTE)',
      )
    } finally {
      if (saved === undefined) delete process.env.SEQK_CASSETTE
      else process.env.SEQK_CASSETTE = saved
    }
  })

  it('keyDifferences names decoding parameter changes', () => {
    const key = {
      provider: 'p',
      model: 'm',
      params: { temperature: 0 },
      role: 'actor',
      protocol: 'sequential',
      attempt: 1,
      repeat: 0,
      cell: null,
      messages: [],
    }
    expect(keyDifferences(key, { ...key, params: { temperature: 1 } })).toEqual([
      'decoding parameters (recorded {"temperature":0}, now {"temperature":1})',
    ])
  })
})

describe('withCassette across cells', () => {
  it('keeps two cells with the same first-attempt messages apart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seqk-cassette-'))
    dirs.push(dir)
    const inCell = (cell: string): ChatRequest => ({
      ...request('same prompt'),
      context: { ...request('same prompt').context, cell },
    })
    const recorder = withCassette(counting(), { mode: 'record', dir })
    const binary = await recorder.chat(inCell('binary-fp'))
    const verifier = await recorder.chat(inCell('verifier-fp'))
    expect(binary.text).not.toBe(verifier.text)
    const replayer = withCassette(counting(), { mode: 'replay', dir })
    expect((await replayer.chat(inCell('binary-fp'))).text).toBe(binary.text)
    expect((await replayer.chat(inCell('verifier-fp'))).text).toBe(verifier.text)
    await expect(replayer.chat(inCell('other-fp'))).rejects.toThrow(
      /cell \(recorded "binary-fp", now "other-fp"\)|cell \(recorded "verifier-fp", now "other-fp"\)/,
    )
  })
})

describe('no secret reaches a cassette', () => {
  /** A gateway that echoes every request header and its URL: in a retryable error first, then in the answer itself. */
  async function echoingGateway() {
    const seen: { url: string; authorization: string | undefined }[] = []
    const server = createServer((req, res) => {
      let body = ''
      req.on('data', (chunk: Buffer) => (body += chunk.toString()))
      req.on('end', () => {
        seen.push({ url: req.url ?? '', authorization: req.headers.authorization })
        const echo = `you sent ${req.method} ${req.url} with headers ${JSON.stringify(req.headers)}`
        if (seen.length % 2 === 1) {
          res.writeHead(500, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ error: { message: `upstream failed; ${echo}`, type: 'server_error' } }))
          return
        }
        const { model } = JSON.parse(body) as { model: string }
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(
          JSON.stringify({
            id: 'c1',
            object: 'chat.completion',
            created: 1,
            model,
            choices: [
              {
                index: 0,
                finish_reason: 'stop',
                message: { role: 'assistant', content: `Here is your answer. Debug: ${echo}` },
              },
            ],
            usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
          }),
        )
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    return {
      url: `http://127.0.0.1:${port}`,
      seen,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    }
  }

  /** Every file under `root`, as one text. */
  const everything = (root: string): string =>
    readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
      .join('\n')

  it('records through a gateway that echoes the Authorization header and the ?api-key= of its URL: the cassette holds neither, and replays', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seqk-cassette-'))
    dirs.push(dir)
    // Fake credentials in the shape of real ones, built at runtime: no key-shaped literal is committed.
    const key = ['sk', 'proj', 'cassette', 'x'.repeat(24)].join('-')
    const queryKey = ['qk', 'y'.repeat(20)].join('-')
    const gateway = await echoingGateway()
    try {
      const options = {
        model: 'coder',
        apiKey: key,
        baseURL: `${gateway.url}/v1?api-key=${queryKey}`,
        retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 },
      }
      const live = actors.openaiCompatible({ ...options, cassette: { mode: 'record', dir } })
      // The user's own prompt quotes the key, as people paste a failing curl command.
      const asked: ChatRequest = {
        messages: [{ role: 'user', content: `why does curl -H "Authorization: Bearer ${key}" fail?` }],
        context: { role: 'actor', taskId: 't', attempt: 1, repeat: 0, protocol: 'sequential' },
      }
      const answer = await live.chat(asked)
      // The gateway did see both credentials, echoed them in its 500 and in the answer.
      expect(gateway.seen).toHaveLength(2)
      expect(gateway.seen[0]!.authorization).toBe(`Bearer ${key}`)
      expect(gateway.seen[0]!.url).toContain(queryKey)
      expect(answer.text).toContain('Here is your answer. Debug: you sent POST')
      expect(answer.text).toContain('[REDACTED]')

      const files = everything(dir)
      expect(files).toContain('"schema": "seqk.cassette/1"')
      for (const secret of [key, queryKey, key.slice(-24)]) {
        expect(files).not.toContain(secret)
        expect(answer.text).not.toContain(secret)
      }
      // The run saw the answer the replay gives, with no call and no key at all.
      const offline = actors.openaiCompatible({
        model: 'coder',
        baseURL: `${gateway.url}/v1?api-key=${queryKey}`,
        cassette: { mode: 'replay', dir },
      })
      expect(await offline.chat(asked)).toEqual({ ...answer, latencyMs: expect.any(Number), replayed: true })
      expect(gateway.seen).toHaveLength(2)
    } finally {
      await gateway.close()
    }
  })

  it("a custom model's parameters lose the credentials of a base URL; its answers lose only registered secrets", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seqk-cassette-'))
    dirs.push(dir)
    const password = ['pw', 'z'.repeat(16)].join('-')
    const token = ['tok', 'w'.repeat(16)].join('-')
    registerSecret(password)
    const model: ChatModel = {
      id: 'custom:m',
      descriptor: {
        provider: 'custom',
        model: 'm',
        params: { baseURL: `https://alice:${password}@gw.example/v1?token=${token}&region=eu`, temperature: 0 },
      },
      // An ordinary code answer that mentions an api_key stays as it is; the registered password does not.
      chat: async () => ({
        text: `api_key = os.environ["KEY"]  # password was ${password}`,
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        latencyMs: 1,
        finishReason: 'stop' as const,
        costUsd: 0,
      }),
    }
    const answer = await withCassette(model, { mode: 'record', dir }).chat(request('hi'))
    expect(answer.text).toBe('api_key = os.environ["KEY"]  # password was [REDACTED]')
    const files = everything(dir)
    expect(files).not.toContain(password)
    expect(files).not.toContain(token)
    expect(files).not.toContain('alice')
    expect(files).toContain('https://gw.example/v1?token=%5BREDACTED%5D&region=eu')
    expect((await withCassette(model, { mode: 'replay', dir }).chat(request('hi'))).text).toBe(answer.text)
  })
})
