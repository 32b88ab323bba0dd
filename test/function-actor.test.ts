// The user's own app as the actor, end to end over real sockets: an async function that calls the
// local test server with the official `openai` SDK (its own system prompt, its own model name),
// reports its usage, and revises from verifier feedback on a JSON extraction task checked by
// verifiers.all. The cell counts exactly the tokens the server reported, the protocol's actor is
// the app's name and version, and an abort reaches the SDK's request.
import OpenAI from 'openai'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  actors,
  feedback,
  runCell,
  verifiers,
  type CellResult,
  type FunctionActorInput,
  type SeqEvalOptions,
  type Usage,
} from '../src/index.js'
import { planCells, resolveOptions } from '../src/vitest/cells.js'
import { startTestServer, type TestServer } from '../src/testing/index.js'

const APP_KEY = 'app-key-SECRET-0123456789abcdef'
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ apiKey: APP_KEY })
})
afterAll(() => server.close())

/** The model behind the app: the wrong date first; after feedback that names the failed check, the right one. */
beforeEach(() => {
  server.reset()
  server.respondWith((request) => {
    const text = request.messages.map((m) => m.content).join('\n')
    const total = /Total due: (\d+(?:\.\d+)?)/.exec(text)?.[1] ?? '0'
    const fixed = /Failed checks/.test(text)
    return JSON.stringify({ total: Number(total), date: fixed ? '2025-03-14' : '14 March 2025' })
  })
})

/** The app: its own client, system prompt and model; it reports each call's usage. */
function invoiceApp(reported: Usage[]) {
  const client = new OpenAI({ apiKey: APP_KEY, baseURL: server.openaiBaseURL, maxRetries: 0, timeout: 10_000 })
  return async ({ messages, signal }: FunctionActorInput) => {
    const completion = await client.chat.completions.create(
      {
        model: 'invoice-extractor-v3',
        messages: [{ role: 'system', content: 'Reply with the invoice as JSON: {"total", "date"}.' }, ...messages],
      },
      { signal },
    )
    const u = completion.usage!
    const usage = {
      inputTokens: u.prompt_tokens,
      outputTokens: u.completion_tokens,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    }
    reported.push(usage)
    return { answer: completion.choices[0]?.message.content ?? '', usage }
  }
}

const tasks = [1234.5, 87.25, 410].map((total, i) => ({
  id: `invoice/${i + 1}`,
  prompt: `Invoice ACME-${i + 1}, issued 14 March 2025. Total due: ${total}. Extract the total and the date (YYYY-MM-DD).`,
  expected: total,
}))
const verifier = verifiers.all([
  verifiers.json(),
  verifiers.numeric({ path: 'total', tolerance: 0.005 }),
  verifiers.regex(/^\d{4}-\d{2}-\d{2}$/, { path: 'date' }),
])

async function cell(options: Pick<SeqEvalOptions, 'actors'>): Promise<CellResult> {
  const resolved = resolveOptions('invoices', {
    tasks,
    verifier,
    budget: 3,
    modes: { verifier: { feedback: feedback.verifier() } },
    ...options,
  })
  const [plan] = planCells('invoices', resolved)
  return runCell({ ...plan!, runId: 'function-actor' })
}

describe('actors.fromFunction over the openai SDK and the test server', () => {
  it('measures the app: revisions from feedback, exactly the usage the server reported, the app in the protocol', async () => {
    const reported: Usage[] = []
    const app = actors.fromFunction(invoiceApp(reported), {
      name: 'invoice-app',
      version: '3',
      params: { model: 'invoice-extractor-v3' },
    })
    const { summary, trajectories } = await cell({ actors: [app] })
    expect(summary.errors.count).toBe(0)
    expect(summary.seqAt).toEqual([0, 1, 1])
    expect(server.requests).toHaveLength(6) // two attempts per task
    for (const t of trajectories) {
      const [first, second] = t.attempts
      expect(first!.verdict.checks?.map((c) => [c.name, c.pass])).toEqual([
        ['json', true],
        ['numeric(total)', true],
        ['regex(date)', false],
      ])
      expect(first!.feedback?.text).toBe(
        'Failed checks (1 of 3):\n- regex(date): the field date does not match /^\\d{4}-\\d{2}-\\d{2}$/',
      )
      expect(second!.verdict.pass).toBe(true)
    }
    // Every attempt's usage is the call's, as the server reported it through the SDK, in total too.
    const attempts = trajectories.flatMap((t) => t.attempts)
    expect(attempts.map((a) => a.usage).sort(byTokens)).toEqual([...reported].sort(byTokens))
    expect(summary.usage?.inputTokens).toBe(reported.reduce((n, u) => n + u.inputTokens, 0))
    expect(summary.usage?.outputTokens).toBe(reported.reduce((n, u) => n + u.outputTokens, 0))
    // The app sent its own system prompt and model, and the revision carried the feedback.
    expect(server.requests.every((r) => r.model === 'invoice-extractor-v3' && r.messages[0]?.role === 'system')).toBe(
      true,
    )
    expect(server.requests.filter((r) => r.messages.some((m) => m.content.includes('Failed checks'))).length).toBe(3)
    expect(summary.protocol.actor).toEqual({
      provider: 'function',
      model: 'invoice-app',
      params: { model: 'invoice-extractor-v3', version: '3' },
    })
  })

  it("an abort reaches the app's SDK call: the request is cancelled and the attempt ends at once", async () => {
    server.injectFaults({ kind: 'hang' })
    const app = actors.fromFunction(invoiceApp([]), { name: 'invoice-app' })
    const controller = new AbortController()
    const context = {
      role: 'actor' as const,
      taskId: 'invoice/1',
      attempt: 1,
      repeat: 0,
      protocol: 'sequential' as const,
    }
    const pending = app.chat({
      messages: [{ role: 'user', content: tasks[0]!.prompt }],
      context,
      signal: controller.signal,
    })
    // Poll until the server holds the request, then abort.
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5))
    controller.abort(new Error('the cell timed out'))
    await expect(pending).rejects.toThrow()
  })

  it("an error the app's SDK throws (a refused key) is the trajectory's error, the key never written", async () => {
    const app = actors.fromFunction(
      async ({ messages, signal }) => {
        const client = new OpenAI({ apiKey: `${APP_KEY}-wrong`, baseURL: server.openaiBaseURL, maxRetries: 0 })
        const completion = await client.chat.completions.create({ model: 'm', messages }, { signal })
        return completion.choices[0]?.message.content ?? ''
      },
      { name: 'misconfigured-app' },
    )
    const { trajectories, summary } = await cell({ actors: [app] })
    expect(summary.errors.count).toBe(3)
    for (const t of trajectories) {
      expect(t.error).toMatchObject({ stage: 'actor', attempt: 1 })
      expect(t.error!.message).toMatch(/401/)
      expect(JSON.stringify(t)).not.toContain(APP_KEY)
    }
  })
})

const byTokens = (a: Usage | null, b: Usage | null) =>
  (a?.inputTokens ?? 0) - (b?.inputTokens ?? 0) || (a?.outputTokens ?? 0) - (b?.outputTokens ?? 0)
