import { afterEach, describe, expect, it, vi } from 'vitest'
import { actorFromSpec, actorsFromEnv } from './actors-from-env.js'
import { simulatedActor } from './simulated.js'
import { SimulationInCiError } from './simulation-policy.js'

describe('actorFromSpec', () => {
  it('splits a compat spec at the @ before the URL, so model names and URLs may hold an @ or a colon', () => {
    expect(actorFromSpec('compat:qwen2.5-coder:7b@http://localhost:11434/v1').descriptor).toMatchObject({
      model: 'qwen2.5-coder:7b',
      params: { baseURL: 'http://localhost:11434/v1' },
    })
    expect(actorFromSpec('compat:org/model@v2@https://gpu-box:8000/v1').descriptor).toMatchObject({
      model: 'org/model@v2',
      params: { baseURL: 'https://gpu-box:8000/v1' },
    })
  })

  it('refuses a credentialed base URL, naming the header option, and quotes no password', () => {
    const password = ['PASS', 'word', '0123'].join('-')
    const error = (() => {
      try {
        actorFromSpec(`compat:qwen@http://u:${password}@host:8000/v1`)
      } catch (e) {
        return e as Error
      }
    })()
    expect(error?.message).toMatch(
      /baseURL must not carry credentials \(user:pass@\).*headers: \{ authorization: 'Basic …' \}/,
    )
    expect(error?.message).not.toContain(password)
    expect(error?.message).not.toContain('qwen@http')
  })

  it('an unknown provider or a malformed spec is named without what follows (a pasted key)', () => {
    const key = ['sk', 'proj', 'pasted', 'x'.repeat(20)].join('-')
    expect(() => actorFromSpec(`opnai:${key}`)).toThrow(
      /^actor spec "opnai":…: unknown provider "opnai"; use openai:<model>/,
    )
    for (const spec of [`opnai:${key}`, `compat:${key}`, key]) {
      expect(() => actorFromSpec(spec)).toThrow()
      try {
        actorFromSpec(spec)
      } catch (e) {
        expect((e as Error).message).not.toContain(key.slice(8))
      }
    }
  })
})

describe('actorFromSpec: knobs and a compat key from the environment', () => {
  it('refuses a bad value naming the variable, the range and why, and never echoes a key', () => {
    const spec = 'compat:qwen@http://localhost:8000/v1'
    expect(() => actorFromSpec(spec, { SEQK_TIMEOUT_MS: '2s' })).toThrow(
      'SEQK_TIMEOUT_MS must be a whole number of milliseconds (got "2s")',
    )
    expect(() => actorFromSpec(spec, { SEQK_MAX_RETRIES: '50' })).toThrow(
      'SEQK_MAX_RETRIES must be from 0 to 20 (twenty failed tries are an outage, not noise) (got "50")',
    )
    expect(() => actorFromSpec(spec, { SEQK_CALL_TIMEOUT_MS: '0', SEQK_TEMPERATURE: 'hot' })).toThrow(
      /SEQK_TEMPERATURE must be a number \(got "hot"\); SEQK_CALL_TIMEOUT_MS must be from 1 to 86400000/,
    )
    const key = ['sk', 'or', 'v1', 'k'.repeat(24)].join('-')
    const error = (() => {
      try {
        actorFromSpec(spec, { SEQK_COMPAT_API_KEY: ' ', SEQK_MAX_TOKENS: '-1' })
      } catch (e) {
        return e as Error
      }
    })()
    expect(error?.message).toMatch(/SEQK_COMPAT_API_KEY is set but empty/)
    // A key beside a bad value is used, never quoted.
    const beside = (() => {
      try {
        actorFromSpec(spec, { SEQK_COMPAT_API_KEY: key, SEQK_MAX_TOKENS: 'x' })
      } catch (e) {
        return e as Error
      }
    })()
    expect(beside?.message).toBe('SEQK_MAX_TOKENS must be a positive integer (got "x")')
  })

  it('keeps the key and the limits out of the protocol (the descriptor), as the options would', () => {
    const key = ['sk', 'local', 'k'.repeat(20)].join('-')
    const plain = actorFromSpec('compat:qwen@http://localhost:8000/v1', {})
    const keyed = actorFromSpec('compat:qwen@http://localhost:8000/v1', {
      SEQK_COMPAT_API_KEY: key,
      SEQK_TIMEOUT_MS: '5000',
      SEQK_CALL_TIMEOUT_MS: '20000',
      SEQK_MAX_RETRIES: '1',
    })
    expect(keyed.descriptor).toEqual(plain.descriptor)
    expect(JSON.stringify(keyed.descriptor)).not.toContain(key)
  })

  it('says that "simulated" belongs in SEQK_ACTORS, not in one spec', () => {
    expect(() => actorFromSpec('simulated')).toThrow(/stands for each eval file's own simulated actors/)
  })
})

describe('actorsFromEnv: a simulation never stands in for a model in CI unless asked', () => {
  const simulated = () => [simulatedActor({ profile: 'reviser' })]
  afterEach(() => vi.unstubAllEnvs())

  it('in CI with no SEQK_ACTORS a simulated fallback fails closed at declaration, naming the fixes', () => {
    vi.stubEnv('CI', 'true')
    vi.stubEnv('SEQK_ACTORS', '')
    const error = (() => {
      try {
        actorsFromEnv(simulated)
      } catch (e) {
        return e as Error
      }
    })()
    expect(error).toBeInstanceOf(SimulationInCiError)
    expect(error?.message).toBe(
      "actorsFromEnv(): SEQK_ACTORS is not set: the eval file's fallback (simulated:reviser) would run in its place: this eval would measure a seeded simulation instead of the model, and in CI (CI=true) that fails closed rather than gate the simulation. Fix: set SEQK_ACTORS to the models to measure (e.g. SEQK_ACTORS=openai:gpt-4.1-mini, or a repository variable: SEQK_ACTORS: ${{ vars.SEQK_ACTORS }}), or choose the actors in the eval file; or set SEQK_ACTORS=simulated to run the simulations on purpose (the bundled offline evals do).",
    )
  })

  it('runs the fallback locally, in CI when asked (SEQK_ACTORS=simulated, or fallbackInCi), and a real fallback anywhere', () => {
    vi.stubEnv('SEQK_ACTORS', '')
    vi.stubEnv('CI', '')
    expect(actorsFromEnv(simulated).map((a) => a.id)).toEqual(['simulated:reviser'])
    vi.stubEnv('CI', 'false')
    expect(actorsFromEnv(simulated)).toHaveLength(1)
    vi.stubEnv('CI', 'true')
    expect(actorsFromEnv(simulated, { fallbackInCi: true })).toHaveLength(1)
    const real = () => [actorFromSpec('compat:qwen@http://localhost:8000/v1', {})]
    expect(actorsFromEnv(real).map((a) => a.id)).toEqual(['compat:qwen'])
    vi.stubEnv('SEQK_ACTORS', 'simulated')
    expect(actorsFromEnv(simulated).map((a) => a.id)).toEqual(['simulated:reviser'])
    vi.stubEnv('SEQK_ACTORS', ' simulated , compat:qwen@http://localhost:8000/v1')
    expect(actorsFromEnv(simulated).map((a) => a.id)).toEqual(['simulated:reviser', 'compat:qwen'])
    vi.stubEnv('MY_ACTORS', 'compat:llama@http://localhost:8000/v1')
    expect(actorsFromEnv(simulated, 'MY_ACTORS').map((a) => a.id)).toEqual(['compat:llama'])
    expect(actorsFromEnv(simulated, { variable: 'MY_ACTORS' }).map((a) => a.id)).toEqual(['compat:llama'])
  })
})
