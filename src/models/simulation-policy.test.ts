import { describe, expect, it } from 'vitest'
import { isCi, isSimulation, simulationsAsked } from './simulation-policy.js'

describe('the simulation policy', () => {
  it('knows a simulation by its descriptor: simulated actors and agents, and an agent driving one', () => {
    expect(isSimulation({ provider: 'simulated', model: 'reviser', params: {} })).toBe(true)
    expect(isSimulation({ provider: 'simulated-agent', model: 'repairs', params: {} })).toBe(true)
    expect(isSimulation({ provider: 'agent', model: 'simulated-agent:repairs', params: {} })).toBe(true)
    expect(isSimulation({ provider: 'agent', model: 'openai:gpt-4.1', params: {} })).toBe(false)
    expect(isSimulation({ provider: 'openai-compatible', model: 'simulated', params: {} })).toBe(false)
    expect([undefined, '', 'false', '0', 'true', '1', 'yes'].map((CI) => isCi({ CI }))).toEqual([
      false,
      false,
      false,
      false,
      true,
      true,
      true,
    ])
  })

  it('reads SEQK_ACTORS=simulated, and only that, as simulations asked for on purpose', () => {
    expect(simulationsAsked({ SEQK_ACTORS: ' simulated ' })).toBe(true)
    expect(simulationsAsked({ SEQK_ACTORS: 'simulated,openai:gpt-4.1' })).toBe(false)
    expect(simulationsAsked({})).toBe(false)
    expect(simulationsAsked({ MY_ACTORS: 'simulated' }, 'MY_ACTORS')).toBe(true)
  })
})
