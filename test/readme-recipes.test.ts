// The README's recipes — a custom verifier, a custom feedback mode, a custom actor (an agent with
// tools) — as code that type-checks against the root's exports and runs in a tiny cell with
// runCell. Each recipe sits between `// #region <name>` and `// #endregion` here, and the first test
// requires the README to hold each region's code (compared as Prettier formats it), so the two
// cannot drift apart.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { format, resolveConfig } from 'prettier'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  actors,
  feedback,
  runCell,
  verifiers,
  type CellResult,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type FunctionActorInput,
  type SeqEvalOptions,
} from 'vitest-seqk'
import { planCells, resolveOptions } from 'vitest-seqk/cells'
import { startTestServer } from 'vitest-seqk/testing'

// #region recipe-verifier
import type { Verdict, Verifier } from 'vitest-seqk'

/** Passes a JSON answer whose `total` equals the task's `metadata.total`. */
export const jsonTotal: Verifier = {
  name: 'json-total',
  version: '1', // bump it whenever what passes changes: name, version and settings are the fingerprint
  settings: { field: 'total' },
  checkTask: (task) => (typeof task.metadata?.total === 'number' ? [] : [`task ${task.id}: needs metadata.total`]),
  verify(task, answer): Verdict {
    let value: unknown
    try {
      value = JSON.parse(answer)
    } catch (error) {
      return {
        pass: false,
        diagnostics: { outcome: 'load-error', summary: 'the answer is not JSON', error: String(error) },
      }
    }
    const total = (value as { total?: unknown } | null)?.total
    if (total === undefined)
      return { pass: false, diagnostics: { outcome: 'no-answer', summary: 'the JSON has no "total" field' } }
    const pass = total === task.metadata?.total
    return {
      pass,
      score: pass ? 1 : 0,
      diagnostics: {
        outcome: pass ? 'passed' : 'failed',
        summary: pass ? 'the total is right' : `the total ${JSON.stringify(total)} is wrong`,
      },
    }
  },
}
// #endregion

// #region recipe-feedback
import type { FeedbackMode } from 'vitest-seqk'

/** Names the first failing test's call, never its expected value: a hint, not the answer. */
export const firstFailure: FeedbackMode = {
  kind: 'verifier', // what it is built from: 'binary', 'verifier' (the verdict) or 'critic' (a model)
  name: 'first-failure',
  version: '1', // kind, name, version and settings are the fingerprint: bump it when the text changes
  settings: {},
  render({ verdict }) {
    const failed = verdict.diagnostics.tests?.find((test) => !test.pass)
    if (failed === undefined)
      return {
        kind: 'verifier',
        text: `Your answer is wrong: ${verdict.diagnostics.summary}. Reply with a corrected answer.`,
      }
    // `requests` lets the derived annotator tell whether the revision fixed what this names.
    return {
      kind: 'verifier',
      text: `Your answer fails \`${failed.call ?? failed.source}\`. Reply with the whole corrected answer.`,
      requests: [`test:${failed.index}`],
    }
  },
}
// #endregion

// #region recipe-actor
import type { ChatMessage, Usage } from 'vitest-seqk'

/** The agent's one tool: `17 * 23` → `391`. */
function calculator(expression: string): string {
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*([-+*/])\s*(-?\d+(?:\.\d+)?)\s*$/.exec(expression)
  if (m === null) return `error: cannot evaluate ${JSON.stringify(expression)}`
  const [a, b] = [Number(m[1]), Number(m[3])]
  return String(m[2] === '+' ? a + b : m[2] === '-' ? a - b : m[2] === '*' ? a * b : a / b)
}

/**
 * An agent with tools is an actor: a ChatModel whose chat() runs the agent loop on another model
 * and returns the final text, with the usage and cost of every step summed.
 */
export function calculatorAgent(model: ChatModel, maxSteps = 4): ChatModel {
  return {
    id: `agent:${model.id}`,
    // The tools and the step limit change what the actor can do: they belong in the fingerprint.
    descriptor: {
      provider: 'agent',
      model: `${model.descriptor.provider}:${model.descriptor.model}`,
      params: { ...model.descriptor.params, tools: 'calculator/1', maxSteps },
    },
    async chat({ messages, context, signal }): Promise<ChatResponse> {
      const system: ChatMessage = {
        role: 'system',
        content:
          'To compute, reply with exactly one line `CALL calculator: <a> <op> <b>` and wait for the result. Otherwise reply with your answer.',
      }
      const conversation: ChatMessage[] = [system, ...messages]
      let usage: Usage | null = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }
      let costUsd: number | undefined = 0
      const started = performance.now()
      for (let step = 1; ; step++) {
        const reply = await model.chat({ messages: conversation, context, signal })
        // One step that reported no usage makes the answer's usage unknown (null), never a smaller count.
        usage =
          usage === null || reply.usage === null
            ? null
            : {
                inputTokens: usage.inputTokens + reply.usage.inputTokens,
                outputTokens: usage.outputTokens + reply.usage.outputTokens,
                cacheReadTokens: usage.cacheReadTokens + reply.usage.cacheReadTokens,
                cacheWriteTokens: usage.cacheWriteTokens + reply.usage.cacheWriteTokens,
              }
        // One unpriced step makes the whole answer's cost unknown, never $0.
        costUsd = costUsd === undefined || reply.costUsd === undefined ? undefined : costUsd + reply.costUsd
        const call = /^CALL calculator:(.*)$/m.exec(reply.text)
        if (call === null || step === maxSteps) {
          return {
            text: reply.text,
            usage,
            costUsd,
            latencyMs: performance.now() - started,
            finishReason: reply.finishReason,
          }
        }
        conversation.push(
          { role: 'assistant', content: reply.text },
          { role: 'user', content: `calculator result: ${calculator(call[1] ?? '')}` },
        )
      }
    },
  }
}
// #endregion

// The quick start's eval file decides at declaration whether the app or its simulated twin runs
// (no OPENAI_API_KEY here; and in CI a missing key fails closed): the twin, on purpose, for the
// region below, and the environment as it was after it. The real app is run on its own further down.
const actorsBefore = process.env.SEQK_ACTORS
process.env.SEQK_ACTORS = 'simulated'

// #region quick-start
import OpenAI from 'openai'

// What the app is told to do: the eval's instructions, part of the subject (an edit is compared, not refused).
const INSTRUCTIONS =
  'Extract the invoice total and issue date. Reply with JSON only: {"total": <number>, "date": "YYYY-MM-DD"}.'

/** Your app: here one call to a model; yours may be a pipeline with its own tools and retrieval. */
async function extractInvoice({ messages, signal }: FunctionActorInput) {
  // messages: the instructions (a system message), the task and, in a revision, the earlier answers and feedback.
  const completion = await new OpenAI().chat.completions.create({ model: 'gpt-4.1-mini', messages }, { signal })
  const usage = completion.usage
  return {
    answer: completion.choices[0]?.message.content ?? '',
    usage: usage && { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens },
  }
}

const app = actors.fromFunction(extractInvoice, {
  name: 'invoice-app',
  version: '1', // bump it when the app changes what it answers: it is part of the protocol
  params: { model: 'gpt-4.1-mini' },
  requires: ['OPENAI_API_KEY'], // without it the app's seeded simulated twin answers instead (never in CI)
  twin: { profile: 'reviser' },
})

const invoice = (id: string, text: string, total: number, date: string) => ({
  id,
  prompt: text,
  expected: total,
  // Only the simulated twin reads this: the right answer, and wrong ones (a misplaced decimal
  // point, a date in another format, prose instead of JSON).
  simulation: {
    correct: [JSON.stringify({ total, date })],
    wrong: [
      JSON.stringify({ total: total * 10, date }),
      JSON.stringify({ total, date: date.split('-').reverse().join('.') }),
      `The total is ${total}.`,
    ],
  },
})

const tasks = [
  invoice('acme', 'ACME GmbH, 14 March 2025. Net 1,037.39, VAT 197.11, total 1,234.50 EUR.', 1234.5, '2025-03-14'),
  invoice('nordic', 'Nordic AB, 2 Jan 2025: 3 x 249 SEK + shipping 99 SEK, total 846 SEK.', 846, '2025-01-02'),
  invoice('globex', 'GLOBEX Inc. #88, 2025-06-30. Subtotal $2,400, discount -$240, due $2,160.', 2160, '2025-06-30'),
  invoice('umbrella', 'Umbrella Ltd, 1st April 2025: 12 h x £85 = £1,020, paid £500, due £520.', 520, '2025-04-01'),
]

// Three checks on one answer, in one cell: JSON with both fields, the total, the date's format.
const checks = verifiers.all([
  verifiers.json({
    schema: {
      type: 'object',
      required: ['total', 'date'],
      properties: { total: { type: 'number' }, date: { type: 'string' } },
    },
  }),
  verifiers.numeric({ path: 'total', tolerance: 0.005 }),
  verifiers.regex(/^\d{4}-\d{2}-\d{2}$/, { path: 'date' }),
])
// #endregion

if (actorsBefore === undefined) delete process.env.SEQK_ACTORS
else process.env.SEQK_ACTORS = actorsBefore

const recipes = readFileSync(new URL(import.meta.url), 'utf8')
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

/** The code of one region of this file. */
function region(name: string): string {
  const match = new RegExp(`// #region ${name}\\n([\\s\\S]*?)// #endregion`).exec(recipes)
  if (match === null) throw new Error(`no region ${name}`)
  return (match[1] as string).trim()
}

/** TypeScript as the project's Prettier writes it: what the README and this file are compared by. */
async function formatted(code: string): Promise<string> {
  const config = await resolveConfig(fileURLToPath(import.meta.url))
  return (await format(code, { ...config, parser: 'typescript' })).trim()
}

/** A scripted model: answers each call with the next reply, 10 input and 5 output tokens at $0.001. */
function scripted(id: string, replies: (request: ChatRequest) => string): ChatModel & { calls: ChatRequest[] } {
  const calls: ChatRequest[] = []
  return {
    id,
    calls,
    descriptor: { provider: 'scripted', model: id, params: {} },
    async chat(request) {
      calls.push(request)
      return {
        text: replies(request),
        usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
        latencyMs: 1,
        finishReason: 'stop',
        costUsd: 0.001,
      }
    },
  }
}

/** Runs the first planned cell of `options` once, as a test would. */
async function firstCell(options: SeqEvalOptions): Promise<CellResult> {
  const [cell] = planCells('recipe', resolveOptions('recipe', options))
  if (cell === undefined) throw new Error('no cell planned')
  return runCell({ ...cell, runId: 'readme-recipes' })
}

describe('the README recipes', () => {
  it("are in the README exactly as they are here (both read through the project's Prettier, so formatting this file keeps them equal)", async () => {
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!)
    for (const name of ['quick-start', 'recipe-verifier', 'recipe-feedback', 'recipe-actor']) {
      const code = await formatted(region(name))
      // Only blocks that open as the recipe does (its first line, a short import) are formatted; a
      // block that is a fragment (no parse) cannot hold a whole recipe.
      const opening = region(name).split('\n')[0]!
      const candidates = await Promise.all(
        blocks.filter((b) => b.includes(opening)).map((b) => formatted(b).catch(() => '')),
      )
      expect(
        candidates.some((block) => block.includes(code)),
        `README.md lacks the code of ${name} in test/readme-recipes.test.ts:\n${code}`,
      ).toBe(true)
    }
  }, 60_000)

  it('a custom verifier: a wrong total fails with its reason, the feedback carries it, the revision passes', async () => {
    const actor = scripted('totals', (request) => (request.context.attempt === 1 ? '{"total": 8}' : '{"total": 9}'))
    const { summary, trajectories } = await firstCell({
      tasks: [{ id: 'sum/1', prompt: 'Reply with JSON {"total": …}: the sum of 2, 3 and 4.', metadata: { total: 9 } }],
      actors: [actor],
      verifier: jsonTotal,
      budget: 3,
      modes: {
        verifier: {
          feedback: {
            kind: 'verifier',
            name: 'summary',
            version: '1',
            settings: {},
            render: ({ verdict }) => ({ kind: 'verifier', text: verdict.diagnostics.summary }),
          },
        },
      },
    })
    expect(trajectories[0]?.attempts.map((a) => a.verdict.pass)).toEqual([false, true])
    expect(trajectories[0]?.attempts[0]?.feedback?.text).toBe('the total 8 is wrong')
    expect(summary.seqAt).toEqual([0, 1, 1])
    expect(() =>
      resolveOptions('recipe', {
        tasks: [{ id: 'no-total', prompt: '?' }],
        actors: [actor],
        verifier: jsonTotal,
        budget: 1,
      }),
    ).toThrow(/needs metadata\.total/)
  })

  it('a custom feedback mode: names the failing call, and the derived annotator reads its requests', async () => {
    const body = 'def double(x):\n    return 2 * x\n\n\ndef double_all(xs):\n    return [double(x) for x in xs]'
    const answer = (code: string) => `\`\`\`python\n${code}\n\`\`\``
    const { summary, trajectories } = await firstCell({
      tasks: [
        {
          id: 'double',
          prompt: 'Write `double(x)`, then `double_all(xs)`, which calls it on every element.',
          tests: 'assert double_all([1, 2]) == [2, 4]\nassert double_all([]) == []',
          simulation: { difficulty: 1, correct: [answer(body)], wrong: [answer(body.replace('2 * x', 'x + 1'))] },
        },
      ],
      actors: [actors.simulated({ profile: 'reviser', seed: 3 })],
      verifier: verifiers.pythonTests(),
      budget: 5,
      repeats: 4,
      modes: { 'first-failure': { feedback: firstFailure } },
    })
    const feedback = trajectories.flatMap((t) => t.attempts).flatMap((a) => (a.feedback ? [a.feedback] : []))
    expect(feedback.length).toBeGreaterThan(0)
    for (const given of feedback) {
      expect(given.text).toBe('Your answer fails `double_all([1, 2])`. Reply with the whole corrected answer.')
      expect(given.requests).toEqual(['test:0'])
    }
    expect(summary.revisionAnnotation?.annotated).toBeGreaterThan(0)
    expect(summary.protocol.feedback).toMatchObject({ kind: 'verifier', name: 'first-failure', version: '1' })
  })

  it('a custom actor: the agent calls its tool, answers, and the cell counts every step', async () => {
    const model = scripted('calc-model', ({ messages }) => {
      const last = messages.at(-1)?.content ?? ''
      const result = /^calculator result: (.*)$/.exec(last)
      return result ? (result[1] as string) : 'CALL calculator: 17 * 23'
    })
    const agent = calculatorAgent(model)
    const { summary, trajectories } = await firstCell({
      tasks: [{ id: 'mul', prompt: 'What is 17 × 23? Reply with the number only.', expected: '391' }],
      actors: [agent],
      verifier: verifiers.exactMatch(),
      budget: 2,
      modes: {
        binary: {
          feedback: {
            kind: 'binary',
            name: 'failed',
            version: '1',
            settings: {},
            render: () => ({ kind: 'binary', text: 'Wrong.' }),
          },
        },
      },
    })
    expect(summary.seqAt).toEqual([1, 1])
    expect(model.calls).toHaveLength(2) // the tool call, then the answer
    expect(model.calls[1]?.messages.at(-1)).toEqual({ role: 'user', content: 'calculator result: 391' })
    const attempt = trajectories[0]?.attempts[0]
    expect(attempt?.usage).toEqual({ inputTokens: 20, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 })
    expect(attempt?.costUsd).toBeCloseTo(0.002, 10)
    expect(summary.protocol.actor).toMatchObject({
      provider: 'agent',
      model: 'scripted:calc-model',
      params: { tools: 'calculator/1', maxSteps: 4 },
    })
  })

  describe('the quick start', () => {
    afterEach(() => vi.unstubAllEnvs())
    const modes = {
      binary: { feedback: feedback.binary() },
      verifier: { feedback: feedback.verifier(), expect: { seqAt: { 3: 0.5 } } },
    }

    it("offline, the app's simulated twin runs every cell; verifier feedback names each failed check", async () => {
      expect(app.id).toBe('simulated:invoice-app')
      const options = resolveOptions('invoices', {
        tasks,
        instructions: INSTRUCTIONS,
        actors: [app],
        verifier: checks,
        budget: 3,
        repeats: 3,
        independent: true,
        modes,
      })
      const cells = planCells('invoices', options)
      expect(cells.map((c) => c.cellId)).toEqual([
        'simulated:invoice-app · binary',
        'simulated:invoice-app · verifier',
        'simulated:invoice-app · independent',
      ])
      const verifier = await runCell({ ...cells[1]!, runId: 'readme-quick-start' })
      expect(verifier.summary.seqAt.at(-1)!).toBeGreaterThanOrEqual(0.5)
      const texts = verifier.trajectories.flatMap((t) =>
        t.attempts.flatMap((a) => (a.feedback ? [a.feedback.text] : [])),
      )
      expect(texts.some((t) => /- numeric\(total\): read \d+ from the field total: not within/.test(t))).toBe(true)
      expect(texts.some((t) => t.includes('- regex(date): the field date does not match'))).toBe(true)
      expect(texts.some((t) => /- json: the answer is not valid JSON/.test(t))).toBe(true)
    })

    it('with a key, the app itself runs: its instructions, its model, its usage, through the openai SDK', async () => {
      const server = await startTestServer({ apiKey: 'sk-quick-start-test' })
      try {
        server.respondWith((request) => {
          const fixed = request.messages.some((m) => m.content.includes('Failed checks'))
          return fixed ? '{"total": 1234.5, "date": "2025-03-14"}' : '{"total": 1234.5, "date": "14 March 2025"}'
        })
        vi.stubEnv('OPENAI_API_KEY', 'sk-quick-start-test')
        vi.stubEnv('OPENAI_BASE_URL', server.openaiBaseURL)
        const real = actors.fromFunction(extractInvoice, { name: 'invoice-app', requires: ['OPENAI_API_KEY'] })
        const { summary, trajectories } = await firstCell({
          tasks: tasks.slice(0, 1),
          instructions: INSTRUCTIONS,
          actors: [real],
          verifier: checks,
          budget: 3,
          modes: { verifier: modes.verifier },
        })
        expect(summary.seqAt).toEqual([0, 1, 1])
        expect(server.requests.map((r) => [r.model, r.messages[0]])).toEqual([
          ['gpt-4.1-mini', { role: 'system', content: INSTRUCTIONS }],
          ['gpt-4.1-mini', { role: 'system', content: INSTRUCTIONS }],
        ])
        expect(trajectories[0]!.attempts.every((a) => a.usage !== null && a.usage.inputTokens > 0)).toBe(true)
        expect(summary.protocol.actor).toMatchObject({ provider: 'function', model: 'invoice-app' })
      } finally {
        await server.close()
      }
    })
  })
})
