/**
 * When a simulation may stand in for a real model. An eval file written to run real models when it
 * can (`actorsFromEnv(() => [simulated…])`, `actors.fromFunction(app, { requires, twin })`) falls
 * back to a seeded simulation when nothing says which model to run or the app's key is missing.
 * Locally that is the offline default. In CI it would gate the simulation instead of the model, the
 * gate would pass forever and nothing would say so: there it fails closed, at declaration (before
 * any model call), unless the run asks for simulations on purpose with `SEQK_ACTORS=simulated`.
 */
import type { ModelDescriptor } from './chat-model.js'

/** The `SEQK_ACTORS` value that asks for each eval file's simulations on purpose. */
export const SIMULATED_SPEC = 'simulated'

/**
 * True on a CI machine: `CI` set to anything but `''`, `false` or `0` (GitHub Actions, GitLab,
 * CircleCI and Buildkite all set `CI=true`).
 *
 * @example
 * isCi({ CI: 'true' }) // true
 */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI?.trim().toLowerCase()
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0'
}

/**
 * True when `SEQK_ACTORS` asks for the eval files' simulations on purpose (`SEQK_ACTORS=simulated`).
 *
 * @example
 * simulationsAsked({ SEQK_ACTORS: 'simulated' }) // true
 */
export function simulationsAsked(env: NodeJS.ProcessEnv = process.env, variable = 'SEQK_ACTORS'): boolean {
  return env[variable]?.trim() === SIMULATED_SPEC
}

/**
 * True for a simulated model's descriptor: `actors.simulated`, `actors.simulatedAgent`, an agent
 * driving either, and an app's simulated twin (`actors.fromFunction(…, { twin })`).
 *
 * @example
 * isSimulation({ provider: 'simulated', model: 'reviser', params: {} }) // true
 */
export function isSimulation(descriptor: ModelDescriptor): boolean {
  return (
    /^simulated/.test(descriptor.provider) || (descriptor.provider === 'agent' && /^simulated/.test(descriptor.model))
  )
}

/**
 * Thrown at declaration when an eval meant for real models would measure a simulation in CI. Its
 * message says why the simulation was chosen and both fixes: say which model to run, or ask for
 * the simulation on purpose.
 *
 * @example
 * // CI=true, SEQK_ACTORS unset:
 * actorsFromEnv(() => [actors.simulated({ profile: 'reviser' })]) // throws SimulationInCiError
 * // SEQK_ACTORS=simulated, or actorsFromEnv(…, { fallbackInCi: true }): the simulation runs, on purpose
 */
export class SimulationInCiError extends Error {
  constructor(what: string, why: string, fix: string, subject: 'the model' | 'the app' = 'the model') {
    super(
      `${what}: ${why}: this eval would measure a seeded simulation instead of ${subject}, and in CI (CI=true) that fails closed rather than gate the simulation. Fix: ${fix}; or set SEQK_ACTORS=${SIMULATED_SPEC} to run the simulations on purpose (the bundled offline evals do).`,
    )
    this.name = 'SimulationInCiError'
  }
}
