import { describe, expect, it } from 'vitest'
import { actorFromSpec } from './actors-from-env.js'

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
