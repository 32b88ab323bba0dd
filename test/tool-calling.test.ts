// Tool calling through the official SDKs against our local server over real sockets: every
// provider offers tools, gets parallel calls back (streaming and not), sends the results, reads
// the answer; a cassette records the episode's steps and replays them without the server.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { actors, type CallContext, type ChatModel, type ChatRequest } from '../src/index.js'
import { toolParameters, type ToolDefinition, type ToolTurn } from '../src/models/tools.js'
import { startTestServer, type Responder, type TestServer } from '../src/testing/index.js'

const KEY = 'fake-key-SECRET-never-written-0123456789'
let server: TestServer
const dirs: string[] = []

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server.close()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** Calls `add` and `shout` at once; once their results are back, answers with them. */
const agentScript: Responder = (request) => {
  if (!request.toolResults?.length)
    return {
      text: '',
      toolCalls: [
        { name: 'add', arguments: { a: 2, b: 3 } },
        { name: 'shout', arguments: { text: 'hi' } },
      ],
    }
  return `results: ${request.toolResults.map((r) => `${r.callId}=${r.content}${r.isError ? '!' : ''}`).join(', ')}`
}
beforeEach(() => {
  server.reset()
  server.respondWith(agentScript)
})

const tools: ToolDefinition[] = [
  {
    name: 'add',
    description: 'Adds two numbers.',
    parameters: toolParameters(z.object({ a: z.number(), b: z.number() })),
  },
  {
    name: 'shout',
    description: 'Upper-cases a text.',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
]
const context: CallContext = { role: 'actor', taskId: 't1', attempt: 1, repeat: 0, protocol: 'sequential' }
const fast = { retry: { baseDelayMs: 1, maxDelayMs: 5 }, timeoutMs: 5000 }

const providers: Record<string, { api: string; make: (stream: boolean, extra?: object) => ChatModel }> = {
  'openai chat': {
    api: 'chat',
    make: (stream, extra) =>
      actors.openai({ model: 'gpt-4o-mini', apiKey: KEY, baseURL: server.openaiBaseURL, stream, ...fast, ...extra }),
  },
  'openai responses': {
    api: 'responses',
    make: (stream, extra) =>
      actors.openai({
        model: 'gpt-4.1-mini',
        api: 'responses',
        apiKey: KEY,
        baseURL: server.openaiBaseURL,
        stream,
        ...fast,
        ...extra,
      }),
  },
  anthropic: {
    api: 'messages',
    make: (stream, extra) =>
      actors.anthropic({
        model: 'claude-sonnet-4-5',
        apiKey: KEY,
        baseURL: server.anthropicBaseURL,
        stream,
        ...fast,
        ...extra,
      }),
  },
  'openai-compatible': {
    api: 'chat',
    make: (stream, extra) =>
      actors.openaiCompatible({ model: 'qwen2.5-coder:7b', baseURL: server.openaiBaseURL, stream, ...fast, ...extra }),
  },
}

/** One two-step episode: the model calls both tools at once, gets both results, answers. */
async function episode(model: ChatModel) {
  const first: ChatRequest = {
    messages: [
      { role: 'system', content: 'Use the tools.' },
      { role: 'user', content: 'Add 2 and 3, shout hi.' },
    ],
    context,
    tools,
  }
  const calling = await model.chat(first)
  const results: ToolTurn[] = (calling.toolCalls ?? []).map((c) => ({
    role: 'tool',
    callId: c.id,
    name: c.name,
    content: c.name === 'add' ? '5' : 'HI',
    isError: c.name === 'shout',
  }))
  const turns: ToolTurn[] = [{ role: 'assistant', text: calling.text, toolCalls: calling.toolCalls ?? [] }, ...results]
  const answering = await model.chat({ ...first, turns })
  return { calling, answering }
}

describe.each(Object.keys(providers))('%s', (name) => {
  const { api, make } = providers[name]!
  it.each([false, true])(
    'offers tools, gets parallel calls and sends their results back (stream: %s)',
    async (stream) => {
      const { calling, answering } = await episode(make(stream))
      expect(calling.toolCalls?.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
        ['add', { a: 2, b: 3 }],
        ['shout', { text: 'hi' }],
      ])
      expect(calling.finishReason).toBe('stop')
      // Tokens of the calls count as output: a turn that only calls tools is not free.
      expect(calling.usage!.outputTokens).toBeGreaterThan(0)
      const [id1, id2] = calling.toolCalls!.map((c) => c.id)
      expect(id1).not.toBe(id2)
      // Every wire carries the error flag, except OpenAI's (its tool results have none): there the text says it.
      const flag = api === 'messages' ? '!' : ''
      expect(answering.text).toBe(`results: ${id1}=5, ${id2}=HI${flag}`)
      expect(answering.toolCalls).toBeUndefined()
      const [offered, replied] = server.requests
      expect(server.requests.map((r) => [r.api, r.stream])).toEqual([
        [api, stream],
        [api, stream],
      ])
      expect(offered!.tools?.map((t) => t.name)).toEqual(['add', 'shout'])
      expect(offered!.tools?.[0]!.parameters).toMatchObject({ type: 'object', required: ['a', 'b'] })
      expect(offered!.toolResults).toBeUndefined()
      // The results travel as tool results, not as text in the conversation.
      expect(replied!.messages.map((m) => m.role)).toEqual(['system', 'user'])
      expect(replied!.toolResults?.map((r) => r.callId)).toEqual([id1, id2])
    },
  )

  it('records an episode on a cassette and replays it exactly, with no request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seqk-tools-cassette-'))
    dirs.push(dir)
    const live = await episode(make(false, { cassette: { mode: 'record', dir } }))
    const sent = server.requests.length
    const replayed = await episode(make(false, { cassette: { mode: 'replay', dir } }))
    expect(server.requests).toHaveLength(sent)
    for (const step of ['calling', 'answering'] as const) {
      const { latencyMs: _a, replayed: r, ...recorded } = replayed[step]
      const { latencyMs: _b, ...original } = live[step]
      expect(r).toBe(true)
      expect(recorded).toEqual(original)
    }
  })

  it('a replay whose tool result differs misses, naming the difference', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seqk-tools-cassette-'))
    dirs.push(dir)
    await episode(make(false, { cassette: { mode: 'record', dir } }))
    const model = make(false, { cassette: { mode: 'replay', dir } })
    const calling = await model.chat({
      messages: [
        { role: 'system', content: 'Use the tools.' },
        { role: 'user', content: 'Add 2 and 3, shout hi.' },
      ],
      context,
      tools,
    })
    const turns: ToolTurn[] = [
      { role: 'assistant', text: '', toolCalls: calling.toolCalls! },
      ...calling.toolCalls!.map((c): ToolTurn => ({
        role: 'tool',
        callId: c.id,
        name: c.name,
        content: 'other',
        isError: false,
      })),
    ]
    await expect(
      model.chat({
        messages: [
          { role: 'system', content: 'Use the tools.' },
          { role: 'user', content: 'Add 2 and 3, shout hi.' },
        ],
        context,
        tools,
        turns,
      }),
    ).rejects.toThrow(/the tool turns/)
  })
})
