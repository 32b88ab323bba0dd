// The secret scan: one real Vitest run whose every output is searched for keys. The server puts
// credentials where names go: its response's `model` echoes the request's bearer token and a
// gateway's key of its own (never configured here), an agent's model calls a tool named like a
// key, and a tool throws an error quoting a key. A second eval file is given a key where a model
// name goes (SEQK_ACTORS=openai:@<key>), and fails to load. Nothing of any key may reach the
// terminal, the run directory (trajectories, summary, plan, report, PR comment, step summary,
// disclosure card), the cassettes, the blob, or `seqk disclose`.
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanEnv, fixtureProject, PACKAGE, runNode, SEQK, SEQK_ALIAS, VITEST } from './fixture-project.js'

// Keys built at run time from random bytes: no key-shaped literal in the sources, and no two runs alike.
const random = (n: number) =>
  randomBytes(n * 2)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, n)
const KEYS = {
  /** The actor's configured key: the server echoes it as the served model. */
  configured: `sk-proj-${random(48)}`,
  /** A key the server adds of its own (a gateway's): known to nobody here, redacted by its shape. */
  gateway: `gsk_${random(52)}`,
  /** An opaque key with no known prefix, also in the served model. */
  opaque: `${random(20)}7${random(20)}`,
  /** The name of a tool the model calls (no such tool). */
  toolName: `hf_${random(34)}`,
  /** In a tool's thrown error. */
  toolError: `xai-${random(60)}`,
  /** Given where a model name goes. */
  spec: `sk-ant-api03-${random(80)}`,
}

const EVAL = `import { createServer } from 'node:http'
import { afterAll } from 'vitest'
import { actors, feedback, seqEval, tool, type Verifier } from 'vitest-seqk'
import { z } from 'zod'
const gateway = process.env.SCAN_GATEWAY!
const opaque = process.env.SCAN_OPAQUE!
const toolName = process.env.SCAN_TOOL_NAME!
const toolError = process.env.SCAN_TOOL_ERROR!
// An OpenAI-compatible server that echoes credentials as its model, and asks for two tools once.
const server = createServer((req, res) => {
  let body = ''
  req.on('data', (c) => (body += c))
  req.on('end', () => {
    const request = JSON.parse(body)
    const bearer = String(req.headers.authorization ?? '').replace(/^Bearer /, '')
    const asked = (request.messages ?? []).some((m: { role: string }) => m.role === 'tool')
    const message = request.tools && !asked
      ? { role: 'assistant', content: null, tool_calls: [
          { id: 'c1', type: 'function', function: { name: toolName, arguments: '{}' } },
          { id: 'c2', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
        ] }
      : { role: 'assistant', content: 'the answer is 4' }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({
      id: 'r', object: 'chat.completion', created: 0,
      model: 'gpt-4o-mini ' + bearer + ' ' + gateway + ' ' + opaque,
      choices: [{ index: 0, message, finish_reason: message.tool_calls ? 'tool_calls' : 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    }))
  })
})
await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
afterAll(() => new Promise<void>((r) => server.close(() => r())))
const baseURL = 'http://127.0.0.1:' + (server.address() as { port: number }).port + '/v1'
const cassette = { mode: 'record' as const, dir: 'cassettes' }
const model = actors.openai({ model: 'gpt-4o-mini', apiKey: process.env.SCAN_CONFIGURED, baseURL, cassette })
const lookup = tool({ name: 'lookup', description: 'Looks a thing up.', parameters: z.object({ q: z.string() }),
  run: () => { throw new Error('upstream refused token ' + toolError) } })
const verifier: Verifier = { name: 'says-5', version: '1', settings: {}, verify: (_t, a) => ({ pass: a.includes('5'), diagnostics: { outcome: a.includes('5') ? 'passed' : 'failed', summary: 'say 5' } }) }
seqEval('scan', {
  tasks: [{ id: 't1', prompt: 'What is 2 + 3?' }],
  actors: [model, actors.agent({ model, tools: [lookup], maxSteps: 3 })],
  verifier,
  budget: 2,
  modes: { binary: { feedback: feedback.binary() } },
})
`

const BAD_EVAL = `import { actors, actorsFromEnv, seqEval } from 'vitest-seqk'
seqEval('bad', {
  tasks: [{ id: 't1', prompt: 'hi' }],
  actors: actorsFromEnv(() => [actors.simulated({ profile: 'reviser' })]),
  verifier: { name: 'v', version: '1', settings: {}, verify: () => ({ pass: true, diagnostics: { outcome: 'passed', summary: '' } }) },
})
`

const dir = fixtureProject('seqk-secret-scan-')
const runDir = join(dir, 'run')
let out = ''
let disclose = ''

beforeAll(async () => {
  writeFileSync(
    join(dir, 'vitest.config.ts'),
    `import { defineConfig } from 'vitest/config'
export default defineConfig({
  ${SEQK_ALIAS},
  test: { include: ['*.eval.ts'], reporters: [${JSON.stringify(PACKAGE.reporter)}, 'blob'], setupFiles: [${JSON.stringify(PACKAGE.setup)}] },
})
`,
  )
  writeFileSync(join(dir, 'scan.eval.ts'), EVAL)
  writeFileSync(join(dir, 'bad.eval.ts'), BAD_EVAL)
  const env = cleanEnv({
    SEQK_RUN_DIR: runDir,
    SEQK_HISTORY_FILE: join(dir, 'history.jsonl'),
    GITHUB_ACTIONS: 'true',
    GITHUB_STEP_SUMMARY: join(dir, 'step-summary.md'),
    SEQK_ACTORS: `openai:@${KEYS.spec}`,
    SCAN_CONFIGURED: KEYS.configured,
    SCAN_GATEWAY: KEYS.gateway,
    SCAN_OPAQUE: KEYS.opaque,
    SCAN_TOOL_NAME: KEYS.toolName,
    SCAN_TOOL_ERROR: KEYS.toolError,
  })
  const run = await runNode([VITEST, 'run'], { cwd: dir, env, timeoutMs: 180_000 })
  out = run.out
  if (process.env.SCAN_DEBUG) console.log(out)
  disclose = (await runNode([...SEQK, 'disclose', runDir], { cwd: dir, env, timeoutMs: 60_000 })).out
}, 240_000)

afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Every file the run wrote, outside node_modules. */
function written(at: string): string[] {
  return readdirSync(at).flatMap((name) => {
    if (name === 'node_modules') return []
    const path = join(at, name)
    return statSync(path).isDirectory() ? written(path) : [path]
  })
}

/** The keys (by a 16-character piece of each) found in `text`. */
function leaks(text: string): string[] {
  return Object.entries(KEYS)
    .filter(([, key]) => text.includes(key.slice(-16)) || text.includes(key.slice(4, 20)))
    .map(([name]) => name)
}

describe('the secret scan: keys where names go', () => {
  it('the run happened: the served model, the tool calls and the load error are in the outputs, each redacted', () => {
    const trajectories = readFileSync(join(runDir, 'trajectories.jsonl'), 'utf8')
    expect(trajectories).toContain('"servedModel":"gpt-4o-mini [REDACTED] [REDACTED] [REDACTED]"')
    expect(trajectories).toMatch(/"name":"\[REDACTED\]"/)
    expect(trajectories).toMatch(/the tool failed: upstream refused token \[REDACTED\]/)
    const summary = readFileSync(join(runDir, 'summary.json'), 'utf8')
    expect(summary).toMatch(/bad\.eval\.ts/)
    expect(summary).toMatch(/the model name looks like an API key/)
    expect(out).toMatch(/the model name looks like an API key/)
    expect(disclose).toMatch(/served gpt-4o-mini \[REDACTED\]/)
  })

  it('no key in the terminal, the run directory, the cassettes, the blob or seqk disclose', () => {
    const files = written(dir)
    expect(files.some((f) => f.includes('cassettes'))).toBe(true)
    expect(files.some((f) => f.includes('.vitest-reports'))).toBe(true)
    expect(files.some((f) => f.endsWith('disclosure.json'))).toBe(true)
    const found = files.flatMap((f) => leaks(readFileSync(f, 'latin1')).map((k) => `${k} in ${f.slice(dir.length)}`))
    expect(found).toEqual([])
    expect(leaks(out)).toEqual([])
    expect(leaks(disclose)).toEqual([])
  })
})
