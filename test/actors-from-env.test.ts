// SEQK_ACTORS against a key-protected OpenAI-compatible server (as vLLM --api-key, a LiteLLM proxy
// or OpenRouter are): the test server requires its own key. Without SEQK_COMPAT_API_KEY the compat
// actor is refused (it used to send `Bearer not-needed`, with no way to send a key); with it the
// cell runs. The retry and time limits from the environment reach the calls; no error or
// artifact ever holds the key.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { actorFromSpec, actorsFromEnv, feedback, runCell, verifiers, type ChatModel } from '../src/index.js'
import { planCells, resolveOptions } from '../src/vitest/cells.js'
import { startTestServer, type TestServer } from '../src/testing/index.js'

const KEY = ['sk', 'vllm', 'SECRET', '0123456789abcdef'].join('-')
let server: TestServer
let spec = ''
beforeAll(async () => {
  server = await startTestServer({ apiKey: KEY })
  spec = `compat:qwen2.5-7b-instruct@${server.openaiBaseURL}`
})
afterAll(() => server.close())
beforeEach(() => {
  server.reset()
  server.respondWith(() => 'Canberra')
})
afterEach(() => vi.unstubAllEnvs())

async function capitals(actor: ChatModel) {
  const options = resolveOptions('capitals', {
    tasks: [{ id: 'au', prompt: 'Capital of Australia? One word.', expected: 'Canberra' }],
    actors: [actor],
    verifier: verifiers.exactMatch(),
    budget: 2,
    modes: { binary: { feedback: feedback.binary() } },
  })
  const [plan] = planCells('capitals', options)
  return runCell({ ...plan!, runId: 'actors-from-env' })
}

describe('SEQK_ACTORS=compat:… against a server that requires a key', () => {
  it('before: without SEQK_COMPAT_API_KEY the server refuses the call (authentication), and says so', async () => {
    const { summary, trajectories } = await capitals(actorFromSpec(spec, { SEQK_MAX_RETRIES: '0' }))
    expect(summary.errors.count).toBe(1)
    expect(trajectories[0]!.error).toMatchObject({ stage: 'actor', kind: 'authentication' })
    expect(trajectories[0]!.error!.message).toMatch(/HTTP 401: .*invalid API key/)
    expect(server.requests).toHaveLength(0) // refused before the body was read as a request
  })

  it('after: SEQK_COMPAT_API_KEY is sent as the bearer key; the cell runs and nothing it writes holds the key', async () => {
    vi.stubEnv('SEQK_ACTORS', spec)
    vi.stubEnv('SEQK_COMPAT_API_KEY', KEY)
    const [actor] = actorsFromEnv(() => [])
    const result = await capitals(actor!)
    expect(result.summary.errors.count).toBe(0)
    expect(result.summary.seqAt).toEqual([1, 1])
    expect(server.requests).toHaveLength(1)
    expect(server.requests[0]!.headers.authorization).toBe('[redacted]')
    expect(JSON.stringify(result)).not.toContain(KEY)
  })

  it('a wrong key is refused, and neither key is written', async () => {
    const wrong = `${KEY}-old`
    server.respondWith(() => 'unused')
    const actor = actorFromSpec(spec, { SEQK_COMPAT_API_KEY: wrong, SEQK_MAX_RETRIES: '0' })
    const { trajectories } = await capitals(actor)
    expect(trajectories[0]!.error?.kind).toBe('authentication')
    expect(JSON.stringify(trajectories)).not.toContain(wrong)
  })

  it('SEQK_MAX_RETRIES and SEQK_TIMEOUT_MS reach every call: no retry of a 503, a hung try cut at the limit', async () => {
    const env = { SEQK_COMPAT_API_KEY: KEY }
    server.injectFaults({ kind: 'status', status: 503 })
    const once = await capitals(actorFromSpec(spec, { ...env, SEQK_MAX_RETRIES: '0' }))
    expect(once.trajectories[0]!.error?.kind).toBe('server')
    expect(server.requests).toHaveLength(1)
    server.reset()
    server.injectFaults({ kind: 'status', status: 503 })
    const retried = await capitals(actorFromSpec(spec, { ...env, SEQK_MAX_RETRIES: '1' }))
    expect(retried.summary.errors.count).toBe(0)
    expect(server.requests).toHaveLength(2)
    server.reset()
    server.injectFaults({ kind: 'hang' })
    const cut = await capitals(actorFromSpec(spec, { ...env, SEQK_TIMEOUT_MS: '300', SEQK_MAX_RETRIES: '0' }))
    expect(cut.trajectories[0]!.error?.kind).toBe('timeout')
    expect(cut.trajectories[0]!.error?.message).toMatch(/no complete response within 300 ms \(timeoutMs\)/)
  })
})
