import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ChatModel, ChatRequest } from './chat-model.js'
import { keyDifferences, resolveCassette, withCassette } from './cassette.js'

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
      return { text: `answer to ${request.messages.at(-1)!.content} #${model.calls}`, usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 2, cacheWriteTokens: 0 }, latencyMs: 123, finishReason: 'stop' as const, costUsd: 0.01 }
    },
  }
  return model
}

const request = (content: string, attempt = 1, repeat = 0): ChatRequest => ({ messages: [{ role: 'user', content }], context: { role: 'actor', taskId: 't', attempt, repeat, protocol: 'sequential' } })

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
    await expect(replayer.chat(request('write a sort function', 2))).rejects.toThrow(/nearest recording differs in attempt \(recorded 1, now 2\)/)
    await expect(replayer.chat(request('write a search function'))).rejects.toThrow(/messages\[0\] \(recorded user "write a sort function", now user "write a search function"\)/)
    const empty = mkdtempSync(join(tmpdir(), 'seqk-cassette-'))
    dirs.push(empty)
    await expect(withCassette(counting(), { mode: 'replay', dir: empty }).chat(request('x'))).rejects.toThrow(/is empty\. Record with SEQK_CASSETTE=record/)
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
    const text = readdirSync(folder).map((f) => readFileSync(join(folder, f), 'utf8')).join('')
    expect(text).not.toMatch(/api[-_]?key|authorization|bearer/i)
    const model = counting()
    expect(withCassette(model, { mode: 'off' })).toBe(model)
  })

  it('rejects an unknown mode from the environment', () => {
    const saved = process.env.SEQK_CASSETTE
    process.env.SEQK_CASSETTE = 'rec'
    try {
      expect(() => resolveCassette()).toThrow('cassette mode "rec" is not one of off, record, replay, auto (check SEQK_CASSETTE)')
    } finally {
      if (saved === undefined) delete process.env.SEQK_CASSETTE
      else process.env.SEQK_CASSETTE = saved
    }
  })

  it('keyDifferences names decoding parameter changes', () => {
    const key = { provider: 'p', model: 'm', params: { temperature: 0 }, role: 'actor', protocol: 'sequential', attempt: 1, repeat: 0, cell: null, messages: [] }
    expect(keyDifferences(key, { ...key, params: { temperature: 1 } })).toEqual(['decoding parameters (recorded {"temperature":0}, now {"temperature":1})'])
  })
})

describe('withCassette across cells', () => {
  it('keeps two cells with the same first-attempt messages apart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seqk-cassette-'))
    dirs.push(dir)
    const inCell = (cell: string): ChatRequest => ({ ...request('same prompt'), context: { ...request('same prompt').context, cell } })
    const recorder = withCassette(counting(), { mode: 'record', dir })
    const binary = await recorder.chat(inCell('binary-fp'))
    const verifier = await recorder.chat(inCell('verifier-fp'))
    expect(binary.text).not.toBe(verifier.text)
    const replayer = withCassette(counting(), { mode: 'replay', dir })
    expect((await replayer.chat(inCell('binary-fp'))).text).toBe(binary.text)
    expect((await replayer.chat(inCell('verifier-fp'))).text).toBe(verifier.text)
    await expect(replayer.chat(inCell('other-fp'))).rejects.toThrow(/cell \(recorded "binary-fp", now "other-fp"\)|cell \(recorded "verifier-fp", now "other-fp"\)/)
  })
})
